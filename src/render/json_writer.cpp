#include "render/json_writer.h"

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

// Everything but the tensors, through nlohmann: the document without its closing '}'.
std::string head_json(const Trace& trace) {
  json doc;
  doc["schema"] = "attnlab.trace/1";
  doc["tool"] = {{"name", "attnlab"}, {"version", ATTNLAB_VERSION}};
  doc["lesson"] = trace.lesson;
  json config = json::object();
  config["lang"] = trace.lang == Lang::Zh ? "zh" : "en";
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
  std::string out = doc.dump();
  out.pop_back();  // the closing '}'
  return out;
}

// The longest number fmt writes for a double ("-2.2250738585072014e-308") plus a comma.
constexpr std::size_t kMaxNumberChars = 32;
// Numbers per block: each thread formats one block into its own buffer per round.
constexpr std::size_t kBlock = std::size_t{1} << 16;

// A finite double as fmt's "{}" writes it: the shortest digits that read back as the same double
// (Dragonbox, from fmt), fixed notation for decimal exponents -4 … 15, else d.ddde±XX. fmt's own
// write spends as long laying the digits out as finding them; this lays them out directly.
// tests/test_matmul.cpp checks it against fmt::format("{}") on random bit patterns.
#if FMT_VERSION >= 90000 && FMT_VERSION < 120000
char* write_double(char* out, double x) {
  static constexpr char kPairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";
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
  // the significand's digits, right-aligned in digits[0, 20)
  char digits[20];
  char* end = digits + 20;
  char* d = end;
  while (sig >= 100) {
    std::size_t pair = static_cast<std::size_t>(sig % 100) * 2;
    sig /= 100;
    d -= 2;
    d[0] = kPairs[pair];
    d[1] = kPairs[pair + 1];
  }
  if (sig >= 10) {
    d -= 2;
    d[0] = kPairs[sig * 2];
    d[1] = kPairs[sig * 2 + 1];
  } else {
    *--d = static_cast<char>('0' + sig);
  }
  int n = static_cast<int>(end - d);
  int exp10 = dec.exponent;        // value = digits · 10^exp10
  int output_exp = exp10 + n - 1;  // the exponent of the first digit
  if (output_exp < -4 || output_exp >= 16) {
    *out++ = d[0];
    if (n > 1) {
      *out++ = '.';
      std::memcpy(out, d + 1, static_cast<std::size_t>(n - 1));
      out += n - 1;
    }
    *out++ = 'e';
    int e = output_exp;
    *out++ = e < 0 ? '-' : '+';
    if (e < 0) e = -e;
    if (e >= 100) {
      *out++ = static_cast<char>('0' + e / 100);
      e %= 100;
    }
    *out++ = kPairs[e * 2];
    *out++ = kPairs[e * 2 + 1];
    return out;
  }
  if (exp10 >= 0) {  // 1234e2 -> 123400
    std::memcpy(out, d, static_cast<std::size_t>(n));
    out += n;
    std::memset(out, '0', static_cast<std::size_t>(exp10));
    return out + exp10;
  }
  int point = n + exp10;  // digits before the point
  if (point > 0) {        // 1234e-2 -> 12.34
    std::memcpy(out, d, static_cast<std::size_t>(point));
    out += point;
    *out++ = '.';
    std::memcpy(out, d + point, static_cast<std::size_t>(n - point));
    return out + (n - point);
  }
  *out++ = '0';  // 1234e-6 -> 0.001234
  *out++ = '.';
  std::memset(out, '0', static_cast<std::size_t>(-point));
  out += -point;
  std::memcpy(out, d, static_cast<std::size_t>(n));
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
