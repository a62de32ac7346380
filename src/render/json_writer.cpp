#include "json_writer.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <system_error>
#include <thread>
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
    written_ += n;
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
  bool to_file() const { return file_ != nullptr; }
  std::size_t written() const { return written_; }  // bytes of the document so far

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
  std::size_t written_ = 0;
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
    if (l.first != 1) t["first"] = l.first;
    tensors[name] = t;
  }
  view["tensors"] = tensors;
  return view;
}

// Everything but the tensors, through nlohmann: the document without its closing '}'.
std::string head_json(const Trace& trace) {
  json doc;
  doc["schema"] = kTraceSchema;
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
      for (const Chart& c : s.charts) {
        json chart = {{"title", c.title}, {"x", c.x}, {"y", c.y}};
        if (c.fit) chart["fit"] = true;  // written only when set, so older traces read the same
        charts.push_back(chart);
      }
      step["charts"] = charts;
    }
    if (!s.notes.empty()) step["notes"] = s.notes;
    steps.push_back(step);
  }
  doc["steps"] = steps;
  doc["view"] = view_json(trace);
  if (!trace.steps_all.empty()) doc["steps_all"] = trace.steps_all;
  if (!trace.header_notes.empty()) doc["header_notes"] = trace.header_notes;  // the run's own notes (lesson.h header_note)  // --step: the steps left out are in here
  std::string out = doc.dump();
  out.pop_back();  // the closing '}'
  return out;
}

// Room per number in a block buffer: the longest number fmt writes for a double
// ("-2.2250738585072014e-308", 24) plus a comma, and slack for write_double's fixed-size copies
// (it may touch up to 34 bytes from where a number starts).
constexpr std::size_t kMaxNumberChars = 48;
// Numbers per block: each thread formats one block into its own buffer per round.
constexpr std::size_t kBlock = std::size_t{1} << 16;

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

// Eight decimal digits of v < 10^8 (leading zeros included) at d[0…7].
inline void write8(std::uint32_t v, char* d) {
  std::uint32_t hi = v / 10000, lo = v % 10000;
  std::memcpy(d, kPairs + 2 * (hi / 100), 2);
  std::memcpy(d + 2, kPairs + 2 * (hi % 100), 2);
  std::memcpy(d + 4, kPairs + 2 * (lo / 100), 2);
  std::memcpy(d + 6, kPairs + 2 * (lo % 100), 2);
}

// The 17 decimal digits of v < 10^17 (leading zeros included) at d[0…16]: a fixed amount of
// work whatever v is (Dragonbox's digits of a double are never more than 17).
inline void write17(std::uint64_t v, char* d) {
  std::uint64_t hi = v / 100000000;
  auto lo = static_cast<std::uint32_t>(v - hi * 100000000);
  auto top = static_cast<std::uint32_t>(hi / 100000000);
  auto mid = static_cast<std::uint32_t>(hi - std::uint64_t{top} * 100000000);
  d[0] = static_cast<char>('0' + top);
  write8(mid, d + 1);
  write8(lo, d + 9);
}

// A finite double as fmt's "{}" writes it: the shortest digits that read back as the same double
// (Dragonbox, from fmt), fixed notation for decimal exponents -4 … 15, else d.ddde±XX. fmt's own
// write spends as long laying the digits out as finding them; this writes all 17 digit places at
// once and moves them with fixed-size copies (the bytes past the number's end are scratch that
// the next number overwrites; the block buffer has room for them), so that random numbers of
// varying length and sign cost few mispredicted branches.
// tests/test_matmul.cpp checks it against fmt::format("{}") on random bit patterns.
char* write_double(char* out, double x) {
  *out = '-';
  out += std::signbit(x) ? 1 : 0;
  x = std::fabs(x);
  if (x == 0.0) {
    *out = '0';
    return out + 1;
  }
  auto dec = fmt::detail::dragonbox::to_decimal(x);
  std::uint64_t sig = dec.significand;
  int n = count_digits(sig);
  int exp10 = dec.exponent;        // value = sig · 10^exp10
  int output_exp = exp10 + n - 1;  // the exponent of the first digit
  char digits[48];
  write17(sig, digits);
  const char* d = digits + 17 - n;  // the n significant digits, then slack
  if (output_exp < -4 || output_exp >= 16) {  // d.ddde±XX
    out[0] = d[0];
    if (n > 1) {
      out[1] = '.';
      std::memcpy(out + 2, d + 1, 16);
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
    std::memcpy(out, d, 17);
    std::memset(out + n, '0', 16);
    return out + n + exp10;
  }
  int point = n + exp10;  // digits before the point
  if (point > 0) {        // 1234e-2 -> 12.34
    std::memcpy(out, d, 16);
    std::memcpy(out + point + 1, d + point, 16);
    out[point] = '.';
    return out + n + 1;
  }
  // 1234e-6 -> 0.001234 (output_exp >= -4, so at most 3 zeros after the point)
  std::memcpy(out, "0.000", 5);
  out += 2 - point;
  std::memcpy(out, d, 17);
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

// Two sets of block buffers: one round of blocks is formatted into one set while the other set,
// the round before, is being written.
struct NumberBuffers {
  std::vector<std::vector<char>> set[2];
  std::vector<char*> ends[2];
};

// The tensor's data, block by block; up to thread_count() blocks formatted at once, and while a
// round is formatted the previous one is written by a thread of its own (writing a file is the
// kernel copying the bytes, which would otherwise leave the formatting threads waiting).
void write_numbers(Sink& sink, const std::vector<double>& data, NumberBuffers& bufs) {
  std::size_t n = data.size();
  std::size_t blocks = (n + kBlock - 1) / kBlock;
  std::size_t per_round = std::max<std::size_t>(1, std::min(thread_count(), blocks));
  for (int s = 0; s < 2; ++s) {
    if (bufs.set[s].size() < per_round) bufs.set[s].resize(per_round);
    bufs.ends[s].assign(per_round, nullptr);
  }
  struct Writer {  // joined on every way out, an exception included
    std::thread thread;
    void join() {
      if (thread.joinable()) thread.join();
    }
    ~Writer() { join(); }
  } writer;
  auto write_round = [&sink, &bufs](int which, std::size_t round) {
    for (std::size_t r = 0; r < round; ++r)
      sink.write(bufs.set[which][r].data(), static_cast<std::size_t>(bufs.ends[which][r] - bufs.set[which][r].data()));
  };
  int s = 0;
  for (std::size_t b0 = 0; b0 < blocks; b0 += per_round, s = 1 - s) {
    std::size_t round = std::min(per_round, blocks - b0);
    // set s was last written two rounds ago; that writer was joined before the last one started
    parallel_for(round, 1, [&](std::size_t r0, std::size_t r1) {
      for (std::size_t r = r0; r < r1; ++r) {
        std::size_t first = (b0 + r) * kBlock, last = std::min(n, first + kBlock);
        std::vector<char>& buf = bufs.set[s][r];
        if (buf.size() < (last - first) * kMaxNumberChars) buf.resize((last - first) * kMaxNumberChars);
        bufs.ends[s][r] = format_numbers(data.data(), first, last, buf.data());
      }
    });
    writer.join();  // the round before is written: the sink is ours again
    bool last_round = b0 + round >= blocks;
    if (last_round || thread_count() <= 1 || !sink.to_file()) {
      write_round(s, round);
      continue;
    }
    try {
      writer.thread = std::thread(write_round, s, round);
    } catch (const std::system_error&) {
      write_round(s, round);  // no thread to be had: write it here
    }
  }
  writer.join();
}

void write_trace(const Trace& trace, Sink& sink) {
  sink.write(head_json(trace));
  sink.write(",\"tensors\":{", 12);
  NumberBuffers bufs;  // reused by every tensor
  for (std::size_t i = 0; i < trace.tensor_order.size(); ++i) {
    const std::string& name = trace.tensor_order[i];
    const TraceTensor& tt = trace.at(name);
    if (i) sink.write(",", 1);
    sink.write(json(name).dump() + ":{\"shape\":" + json(tt.tensor.shape).dump() + ",\"axes\":" + json(tt.labels.axes).dump() +
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

bool write_trace_json(const Trace& trace, std::FILE* out, std::size_t* bytes) {
  Sink sink(out);
  write_trace(trace, sink);
  if (bytes != nullptr) *bytes = sink.written();
  return sink.finish();
}

}  // namespace attn
