#include "json_writer.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include <fmt/compile.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "parallel.h"

namespace attn {

namespace {

using json = nlohmann::ordered_json;

// Where the document goes: a FILE* or a string. Small pieces are gathered in one reused buffer;
// large ones (a block of formatted numbers) go straight through.
class Sink {
 public:
  explicit Sink(std::FILE* file) : file_(file) { buf_.reserve(kFlushAt); }
  explicit Sink(std::string* str) : str_(str) {}

  void write(const char* p, std::size_t n) {
    if (str_ != nullptr) {
      str_->append(p, n);
      return;
    }
    if (n >= kFlushAt) {
      flush();
      put(p, n);
      return;
    }
    buf_.append(p, n);
    if (buf_.size() >= kFlushAt) flush();
  }
  void write(const std::string& s) { write(s.data(), s.size()); }

  // Flushes everything; false if any write failed.
  bool finish() {
    flush();
    if (file_ != nullptr && std::fflush(file_) != 0) ok_ = false;
    return ok_;
  }

 private:
  static constexpr std::size_t kFlushAt = std::size_t{1} << 16;

  void flush() {
    if (!buf_.empty()) put(buf_.data(), buf_.size());
    buf_.clear();
  }
  void put(const char* p, std::size_t n) {
    if (ok_ && std::fwrite(p, 1, n, file_) != n) ok_ = false;
  }

  std::FILE* file_ = nullptr;
  std::string* str_ = nullptr;
  std::string buf_;
  bool ok_ = true;
};

json scalar_json(const Scalar& v) {
  if (auto* i = std::get_if<std::int64_t>(&v)) return *i;
  if (auto* s = std::get_if<std::string>(&v)) return *s;
  if (auto* b = std::get_if<Bool>(&v)) return b->value;
  if (auto* l = std::get_if<std::vector<std::string>>(&v)) return *l;
  double x = std::get<double>(v);
  return std::isfinite(x) ? json(x) : json(nullptr);
}

// How the trace is shown, so that a saved trace renders as the run did (attnlab render): the
// labels of config entries, steps' headings and value labels, tensors' row/column labels, block
// word and heatmap flag. Only what is set is written.
json view_json(const Trace& trace) {
  json view = json::object();
  json config = json::object();
  for (const Value& v : trace.config)
    if (!v.label.empty()) config[v.name] = v.label;
  view["config_labels"] = config;
  json steps = json::array();
  for (const Step& s : trace.steps) {
    json step = json::object();
    if (!s.heading.empty()) step["heading"] = s.heading;
    json labels = json::object();
    for (const Value& v : s.values)
      if (!v.label.empty()) labels[v.name] = v.label;
    step["value_labels"] = labels;
    steps.push_back(step);
  }
  view["steps"] = steps;
  json tensors = json::object();
  for (const std::string& name : trace.tensor_order) {
    const Labels& l = trace.at(name).labels;
    json t = json::object();
    if (!l.rows.empty()) t["rows"] = l.rows;
    if (!l.cols.empty()) t["cols"] = l.cols;
    t["block"] = l.block;
    if (l.heatmap) t["heatmap"] = true;
    tensors[name] = t;
  }
  view["tensors"] = tensors;
  return view;
}

// Everything but the tensors, through nlohmann: the document without its closing '}'.
std::string head_json(const Trace& trace) {
  json doc;
  doc["schema"] = "attnlab.trace/1";
  doc["tool"] = {{"name", "attnlab"}, {"version", ATTNLAB_VERSION}};
  doc["lesson"] = trace.lesson;
  doc["data_order"] = "row-major";  // each tensor's data: the flat list, last axis fastest (numpy's C order)
  json config = json::object();
  config["lang"] = trace.lang.code;
  for (const Value& v : trace.config) config[v.name] = scalar_json(v.value);
  doc["config"] = config;
  json steps = json::array();
  for (const Step& s : trace.steps) {
    json step{{"id", s.id}, {"title", s.title}, {"text", s.text}, {"tensors", s.tensors}};
    json values = json::object();
    for (const Value& v : s.values) values[v.name] = scalar_json(v.value);
    step["values"] = values;
    if (!s.tables.empty()) {
      json tables = json::array();
      for (const Table& t : s.tables) {
        json rows = json::array();
        for (const auto& r : t.rows) {
          json row = json::array();
          for (const Scalar& c : r) row.push_back(scalar_json(c));
          rows.push_back(row);
        }
        tables.push_back({{"header", t.header}, {"rows", rows}});
      }
      step["tables"] = tables;
    }
    if (!s.charts.empty()) {
      json charts = json::array();
      for (const Chart& c : s.charts) charts.push_back({{"title", c.title}, {"x", c.x}, {"y", c.y}});
      step["charts"] = charts;
    }
    if (!s.notes.empty()) step["notes"] = s.notes;
    steps.push_back(step);
  }
  doc["steps"] = steps;
  doc["view"] = view_json(trace);
  if (!trace.steps_all.empty()) doc["steps_all"] = trace.steps_all;  // --step: the steps left out are in here
  std::string out = doc.dump();
  out.pop_back();  // the closing '}'
  return out;
}

// Room per number in a block buffer: the longest number fmt writes for a double
// ("-2.2250738585072014e-308", 24) plus a comma, and slack for write_double's 16-byte memset.
constexpr std::size_t kMaxNumberChars = 48;
// Numbers per block: each thread formats one block into its own buffer per round.
constexpr std::size_t kBlock = std::size_t{1} << 16;

// A finite double as fmt's "{}" writes it: the shortest digits that read back as the same double
// (Dragonbox, from fmt), fixed notation for decimal exponents -4 … 15, else d.ddde±XX. fmt's own
// write spends as long laying the digits out as finding them; this lays them out directly.
// tests/test_matmul.cpp checks it against fmt::format("{}") on random bit patterns.
#if FMT_VERSION >= 90000 && FMT_VERSION < 120000
constexpr char kPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

int count_digits(std::uint64_t v) {  // v >= 1
  static constexpr std::uint64_t kPow10[] = {1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
                                             10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
                                             100000000000ULL, 1000000000000ULL, 10000000000000ULL,
                                             100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
                                             100000000000000000ULL, 1000000000000000000ULL,
                                             10000000000000000000ULL};
  int bits = 64 - __builtin_clzll(v);
  int t = (bits * 1233) >> 12;  // floor(log10(2^bits)), one too many at most
  return t + 1 - (v < kPow10[t] ? 1 : 0);
}

// The decimal digits of v written backwards so that the last one is at end[-1].
void write_digits(std::uint64_t v, char* end) {
  // whole blocks of 8 digits first: their four pairs do not wait on one another
  for (int block = 0; block < 2 && v >= 100000000; ++block) {
    std::uint64_t q = v / 100000000;
    auto r = static_cast<std::uint32_t>(v - q * 100000000);
    std::uint32_t hi = r / 10000, lo = r % 10000;
    end -= 8;
    std::memcpy(end, kPairs + 2 * (hi / 100), 2);
    std::memcpy(end + 2, kPairs + 2 * (hi % 100), 2);
    std::memcpy(end + 4, kPairs + 2 * (lo / 100), 2);
    std::memcpy(end + 6, kPairs + 2 * (lo % 100), 2);
    v = q;
  }
  auto top = static_cast<std::uint32_t>(v);  // the leading 1 to 8 digits
  while (top >= 100) {
    end -= 2;
    std::memcpy(end, kPairs + 2 * (top % 100), 2);
    top /= 100;
  }
  if (top >= 10) std::memcpy(end - 2, kPairs + 2 * top, 2);
  else end[-1] = static_cast<char>('0' + top);
}

// A finite double as fmt's "{}" writes it: the shortest digits that read back as the same double
// (Dragonbox, from fmt), fixed notation for decimal exponents -4 … 15, else d.ddde±XX. fmt's own
// write spends as long laying the digits out as finding them; this writes them in place.
// tests/test_matmul.cpp checks it against fmt::format("{}") on random bit patterns.
char* write_double(char* out, double x) {
  if (std::signbit(x)) {
    *out++ = '-';
    x = -x;
  }
  if (x == 0.0) {
    *out++ = '0';
    return out;
  }
  auto dec = fmt::detail::dragonbox::to_decimal(x);
  std::uint64_t sig = dec.significand;
  int n = count_digits(sig);
  int exp10 = dec.exponent;        // value = sig · 10^exp10
  int output_exp = exp10 + n - 1;  // the exponent of the first digit
  if (output_exp < -4 || output_exp >= 16) {  // d.ddde±XX: digits at out+1…, the first moved left
    write_digits(sig, out + 1 + n);
    out[0] = out[1];
    if (n > 1) {
      out[1] = '.';
      out += n + 1;
    } else {
      out += 1;
    }
    *out++ = 'e';
    int e = output_exp;
    *out++ = e < 0 ? '-' : '+';
    if (e < 0) e = -e;
    if (e >= 100) {
      *out++ = static_cast<char>('0' + e / 100);
      e %= 100;
    }
    std::memcpy(out, kPairs + 2 * e, 2);
    return out + 2;
  }
  if (exp10 >= 0) {  // 1234e2 -> 123400 (n + exp10 <= 16)
    write_digits(sig, out + n);
    out += n;
    std::memset(out, '0', 16);
    return out + exp10;
  }
  int point = n + exp10;  // digits before the point
  if (point > 0) {        // 1234e-2 -> 12.34: digits at out+1…, the integer part moved left
    write_digits(sig, out + 1 + n);
    for (int i = 0; i < point; ++i) out[i] = out[i + 1];
    out[point] = '.';
    return out + n + 1;
  }
  // 1234e-6 -> 0.001234 (output_exp >= -4, so at most 3 zeros after the point)
  std::memcpy(out, "0.000", 5);
  out += 2 - point;
  write_digits(sig, out + n);
  return out + n;
}
#else
char* write_double(char* out, double x) { return fmt::format_to(out, FMT_COMPILE("{}"), x); }
#endif

// data[b, e) as ",x,y,…" (a leading comma unless b is 0) into out; returns the end.
char* format_numbers(const double* data, std::size_t b, std::size_t e, char* out) {
  for (std::size_t i = b; i < e; ++i) {
    double x = data[i];
    if (i) *out++ = ',';
    if (std::isfinite(x)) {
      out = write_double(out, x);
    } else {
      std::memcpy(out, "null", 4);
      out += 4;
    }
  }
  return out;
}

// The tensor's data, block by block; up to thread_count() blocks formatted at once.
void write_numbers(Sink& sink, const std::vector<double>& data, std::vector<std::vector<char>>& bufs) {
  std::size_t n = data.size();
  std::size_t blocks = (n + kBlock - 1) / kBlock;
  std::size_t per_round = std::max<std::size_t>(1, std::min(thread_count(), blocks));
  if (bufs.size() < per_round) bufs.resize(per_round);
  std::vector<char*> ends(per_round);
  for (std::size_t b0 = 0; b0 < blocks; b0 += per_round) {
    std::size_t round = std::min(per_round, blocks - b0);
    parallel_for(round, 1, [&](std::size_t r0, std::size_t r1) {
      for (std::size_t r = r0; r < r1; ++r) {
        std::size_t first = (b0 + r) * kBlock, last = std::min(n, first + kBlock);
        std::vector<char>& buf = bufs[r];
        if (buf.size() < (last - first) * kMaxNumberChars) buf.resize((last - first) * kMaxNumberChars);
        ends[r] = format_numbers(data.data(), first, last, buf.data());
      }
    });
    for (std::size_t r = 0; r < round; ++r) sink.write(bufs[r].data(), static_cast<std::size_t>(ends[r] - bufs[r].data()));
  }
}

void write_trace(const Trace& trace, Sink& sink) {
  sink.write(head_json(trace));
  sink.write(",\"tensors\":{", 12);
  std::vector<std::vector<char>> bufs;  // reused by every tensor
  for (std::size_t i = 0; i < trace.tensor_order.size(); ++i) {
    const std::string& name = trace.tensor_order[i];
    const TraceTensor& tt = trace.at(name);
    if (i) sink.write(",", 1);
    sink.write(json(name).dump() + ":{\"shape\":" + json(tt.tensor.shape).dump() +
               ",\"meaning\":" + json(tt.meaning).dump() + ",\"data\":[");
    write_numbers(sink, tt.tensor.data, bufs);
    sink.write("]}", 2);
  }
  sink.write("}}\n", 3);
}

}  // namespace

std::string trace_to_json(const Trace& trace) {
  std::string out;
  Sink sink(&out);
  write_trace(trace, sink);
  return out;
}

bool write_trace_json(const Trace& trace, std::FILE* out) {
  Sink sink(out);
  write_trace(trace, sink);
  return sink.finish();
}

}  // namespace attn
