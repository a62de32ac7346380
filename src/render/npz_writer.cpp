#include "npz_writer.h"

#include <array>
#include <bit>
#include <cstring>
#include <vector>

#include "cpu.h"
#include "parallel.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define ATTNLAB_CRC_CLMUL 1
#endif

namespace attn {

static_assert(std::endian::native == std::endian::little, "the .npy data is written as the machine holds it ('<f8')");

namespace {

// Slice-by-8 tables for the reflected polynomial 0xEDB88320.
struct CrcTables {
  std::uint32_t t[8][256];
  CrcTables() {
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[0][i] = c;
    }
    for (std::uint32_t i = 0; i < 256; ++i)
      for (int s = 1; s < 8; ++s) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xFF];
  }
};
const CrcTables kCrc;

// GF(2) matrix helpers for combining the CRCs of two pieces (zlib's crc32_combine).
std::uint32_t gf2_times(const std::uint32_t* mat, std::uint32_t vec) {
  std::uint32_t sum = 0;
  for (int i = 0; vec != 0; ++i, vec >>= 1)
    if (vec & 1) sum ^= mat[i];
  return sum;
}
void gf2_square(std::uint32_t* square, const std::uint32_t* mat) {
  for (int n = 0; n < 32; ++n) square[n] = gf2_times(mat, mat[n]);
}
// The CRC of A followed by B, from crc(A), crc(B) and B's length.
std::uint32_t crc32_combine(std::uint32_t crc1, std::uint32_t crc2, std::uint64_t len2) {
  if (len2 == 0) return crc1;
  std::uint32_t even[32], odd[32];
  odd[0] = 0xEDB88320u;
  for (int n = 1, row = 1; n < 32; ++n, row <<= 1) odd[n] = static_cast<std::uint32_t>(row);
  gf2_square(even, odd);
  gf2_square(odd, even);
  do {
    gf2_square(even, odd);
    if (len2 & 1) crc1 = gf2_times(even, crc1);
    len2 >>= 1;
    if (len2 == 0) break;
    gf2_square(odd, even);
    if (len2 & 1) crc1 = gf2_times(odd, crc1);
    len2 >>= 1;
  } while (len2 != 0);
  return crc1 ^ crc2;
}

// The CRC register (the CRC before its final inversion) after n more bytes, by tables: 8 bytes a
// step (slicing-by-8), then byte by byte.
std::uint32_t crc32_table_step(std::uint32_t state, const unsigned char* p, std::size_t n) {
  const auto& t = kCrc.t;
  while (n >= 8) {
    std::uint32_t a, b;
    std::memcpy(&a, p, 4);
    std::memcpy(&b, p + 4, 4);
    a ^= state;
    state = t[7][a & 0xFF] ^ t[6][(a >> 8) & 0xFF] ^ t[5][(a >> 16) & 0xFF] ^ t[4][a >> 24] ^ t[3][b & 0xFF] ^
            t[2][(b >> 8) & 0xFF] ^ t[1][(b >> 16) & 0xFF] ^ t[0][b >> 24];
    p += 8;
    n -= 8;
  }
  while (n-- > 0) state = t[0][(state ^ *p++) & 0xFF] ^ (state >> 8);
  return state;
}

#ifdef ATTNLAB_CRC_CLMUL
// The same register by carry-less multiplication (PCLMULQDQ), as Intel's "Fast CRC Computation for
// Generic Polynomials Using PCLMULQDQ" (2009) folds it, with the constants of Linux's
// crc32-pclmul_asm.S for this polynomial: four 128-bit lanes folded 64 bytes ahead at a time (four
// independent chains, so the multiplier's latency is hidden), the lanes folded into one, then
// reduced to 32 bits (Barrett). About 1 cycle per 16 bytes against 1 per byte or so for the
// tables. n >= 64 and a multiple of 16.
#define ATTNLAB_CLMUL __attribute__((target("pclmul,sse4.1")))
ATTNLAB_CLMUL inline __m128i load16(const unsigned char* q) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(q)); }
// x moved forward by k's distance (its two halves times k's), plus the 16 bytes that arrive there
ATTNLAB_CLMUL inline __m128i fold(__m128i x, __m128i k, __m128i next) {
  return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11)), next);
}
ATTNLAB_CLMUL std::uint32_t crc32_clmul_step(std::uint32_t state, const unsigned char* p, std::size_t n) {
  const __m128i fold4 = _mm_set_epi64x(0x1c6e41596, 0x154442bd4);  // x^(4*128+32), x^(4*128-32) mod P, reflected
  const __m128i fold1 = _mm_set_epi64x(0x0ccaa009e, 0x1751997d0);  // the same for 128 bits
  const __m128i fold64 = _mm_set_epi64x(0, 0x163cd6124);           // 64 bits to 32
  const __m128i barrett = _mm_set_epi64x(0x1f7011641, 0x1db710641);  // mu (high), P (low)
  const __m128i low32 = _mm_set_epi32(0, 0, 0, -1);
  __m128i x0 = _mm_xor_si128(load16(p), _mm_cvtsi32_si128(static_cast<int>(state)));
  __m128i x1 = load16(p + 16), x2 = load16(p + 32), x3 = load16(p + 48);
  for (p += 64, n -= 64; n >= 64; p += 64, n -= 64) {
    x0 = fold(x0, fold4, load16(p));
    x1 = fold(x1, fold4, load16(p + 16));
    x2 = fold(x2, fold4, load16(p + 32));
    x3 = fold(x3, fold4, load16(p + 48));
  }
  __m128i x = fold(fold(fold(x0, fold1, x1), fold1, x2), fold1, x3);
  for (; n >= 16; p += 16, n -= 16) x = fold(x, fold1, load16(p));
  x = _mm_xor_si128(_mm_clmulepi64_si128(x, fold1, 0x10), _mm_srli_si128(x, 8));                  // 128 -> 64 bits
  x = _mm_xor_si128(_mm_srli_si128(x, 4), _mm_clmulepi64_si128(_mm_and_si128(x, low32), fold64, 0x00));  // 64 -> 32
  __m128i t = _mm_clmulepi64_si128(_mm_and_si128(x, low32), barrett, 0x10);
  t = _mm_clmulepi64_si128(_mm_and_si128(t, low32), barrett, 0x00);
  return static_cast<std::uint32_t>(_mm_extract_epi32(_mm_xor_si128(x, t), 1));
}
#undef ATTNLAB_CLMUL
#endif

// One thread's CRC: carry-less multiplication over the multiple of 16 bytes where the CPU has it,
// the tables for the rest.
std::uint32_t crc32_serial(std::uint32_t crc, const unsigned char* p, std::size_t n) {
  std::uint32_t state = ~crc;
#ifdef ATTNLAB_CRC_CLMUL
  if (n >= 64 && cpu_has_pclmul()) {
    const std::size_t bulk = n & ~std::size_t{15};
    state = crc32_clmul_step(state, p, bulk);
    p += bulk;
    n -= bulk;
  }
#endif
  return ~crc32_table_step(state, p, n);
}

void put16(std::string& s, std::uint16_t v) {
  s += static_cast<char>(v & 0xFF);
  s += static_cast<char>(v >> 8);
}
void put32(std::string& s, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) s += static_cast<char>((v >> (8 * i)) & 0xFF);
}
void put64(std::string& s, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) s += static_cast<char>((v >> (8 * i)) & 0xFF);
}

// The .npy header (format 1.0): magic, version, header length, the dict padded with spaces and a
// newline so that the data starts at a multiple of 64 bytes.
std::string npy_header(const Shape& shape) {
  // numpy's own spacing: "(2, 3)", and a 1-tuple's "(5,)"
  std::string tuple;
  for (std::size_t i = 0; i < shape.size(); ++i) tuple += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) tuple += ",";
  std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (" + tuple + "), }";
  std::size_t total = 10 + dict.size() + 1;
  std::size_t padded = (total + 63) / 64 * 64;
  dict.append(padded - total, ' ');
  dict += '\n';
  std::string h = "\x93NUMPY";
  h += '\x01';
  h += '\x00';
  put16(h, static_cast<std::uint16_t>(dict.size()));
  return h + dict;
}

constexpr std::uint16_t kDosTime = 0, kDosDate = (1980 - 1980) << 9 | 1 << 5 | 1;  // 1980-01-01 00:00: no clock in the bytes

struct Entry {
  std::string name;
  std::uint32_t crc = 0;
  std::uint64_t size = 0, offset = 0;
};

}  // namespace

std::uint32_t crc32_ieee(std::uint32_t crc, const void* data, std::size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  // a large buffer in pieces on every thread, their CRCs combined in order
  constexpr std::size_t kPiece = std::size_t{1} << 22;  // 4 MiB
  if (n < 2 * kPiece || thread_count() == 1) return crc32_serial(crc, p, n);
  const std::size_t pieces = (n + kPiece - 1) / kPiece;
  std::vector<std::uint32_t> crcs(pieces);
  parallel_for(pieces, 1, [&](std::size_t a, std::size_t b) {
    for (std::size_t i = a; i < b; ++i) crcs[i] = crc32_serial(i == 0 ? crc : 0, p + i * kPiece, std::min(kPiece, n - i * kPiece));
  });
  std::uint32_t all = crcs[0];
  for (std::size_t i = 1; i < pieces; ++i) all = crc32_combine(all, crcs[i], std::min(kPiece, n - i * kPiece));
  return all;
}

std::uint32_t crc32_ieee_table(std::uint32_t crc, const void* data, std::size_t n) {
  return ~crc32_table_step(~crc, static_cast<const unsigned char*>(data), n);
}

bool write_trace_npz(const Trace& trace, std::FILE* out, std::size_t* bytes) {
  std::uint64_t offset = 0;
  bool ok = true;
  // Straight from the tensor's storage, in pieces of 1 MiB: on the 2-core VM of 2026-12 one
  // write() of a whole tensor (up to 50 MB at d_model 768) made the kernel's copy into the page
  // cache most of the run (perf: 40-55% of its CPU, 0.3-1.4 s for 139 MB); in 1 MiB pieces the
  // same copy is about 4% (docs/ARCHITECTURE.md, --npz). 64 KiB to 4 MiB pieces measured alike.
  constexpr std::size_t kWritePiece = std::size_t{1} << 20;
  auto write = [&](const void* p, std::size_t n) {
    const auto* bytes = static_cast<const char*>(p);
    for (std::size_t done = 0; ok && done < n; done += kWritePiece) {
      const std::size_t k = std::min(kWritePiece, n - done);
      if (std::fwrite(bytes + done, 1, k, out) != k) ok = false;
    }
    offset += n;
  };
  std::vector<Entry> entries;
  for (const std::string& name : trace.tensor_order) {
    const Tensor& t = trace.at(name).tensor;
    Entry e;
    e.name = name + ".npy";
    e.offset = offset;
    std::string header = npy_header(t.shape);
    const auto* data = reinterpret_cast<const unsigned char*>(t.data.data());
    std::size_t data_bytes = t.data.size() * sizeof(double);
    e.crc = crc32_ieee(crc32_ieee(0, header.data(), header.size()), data, data_bytes);
    e.size = header.size() + data_bytes;
    // local file header: sizes fit in 32 bits (a tensor is at most 1 GiB); stored (method 0)
    std::string lh;
    put32(lh, 0x04034b50);
    put16(lh, 20);  // version needed: 2.0
    put16(lh, 0);   // flags
    put16(lh, 0);   // stored
    put16(lh, kDosTime);
    put16(lh, kDosDate);
    put32(lh, e.crc);
    put32(lh, static_cast<std::uint32_t>(e.size));
    put32(lh, static_cast<std::uint32_t>(e.size));
    put16(lh, static_cast<std::uint16_t>(e.name.size()));
    put16(lh, 0);
    lh += e.name;
    write(lh.data(), lh.size());
    write(header.data(), header.size());
    write(data, data_bytes);
    entries.push_back(std::move(e));
  }
  const std::uint64_t cd_offset = offset;
  std::string cd;
  for (const Entry& e : entries) {
    const bool far = e.offset >= 0xFFFFFFFFu;
    put32(cd, 0x02014b50);
    put16(cd, far ? 45 : 20);  // made by
    put16(cd, far ? 45 : 20);  // needed
    put16(cd, 0);
    put16(cd, 0);
    put16(cd, kDosTime);
    put16(cd, kDosDate);
    put32(cd, e.crc);
    put32(cd, static_cast<std::uint32_t>(e.size));
    put32(cd, static_cast<std::uint32_t>(e.size));
    put16(cd, static_cast<std::uint16_t>(e.name.size()));
    put16(cd, far ? 12 : 0);  // extra: the ZIP64 offset
    put16(cd, 0);             // comment
    put16(cd, 0);             // disk
    put16(cd, 0);             // internal attributes
    put32(cd, 0);             // external attributes
    put32(cd, far ? 0xFFFFFFFFu : static_cast<std::uint32_t>(e.offset));
    cd += e.name;
    if (far) {
      put16(cd, 0x0001);
      put16(cd, 8);
      put64(cd, e.offset);
    }
  }
  write(cd.data(), cd.size());
  const std::uint64_t cd_end = offset;
  const bool zip64 = cd_offset >= 0xFFFFFFFFu || entries.size() >= 0xFFFF;
  std::string end;
  if (zip64) {
    put32(end, 0x06064b50);  // ZIP64 end of central directory record
    put64(end, 44);
    put16(end, 45);
    put16(end, 45);
    put32(end, 0);
    put32(end, 0);
    put64(end, entries.size());
    put64(end, entries.size());
    put64(end, cd.size());
    put64(end, cd_offset);
    put32(end, 0x07064b50);  // its locator
    put32(end, 0);
    put64(end, cd_end);
    put32(end, 1);
  }
  put32(end, 0x06054b50);
  put16(end, 0);
  put16(end, 0);
  put16(end, static_cast<std::uint16_t>(zip64 ? 0xFFFF : entries.size()));
  put16(end, static_cast<std::uint16_t>(zip64 ? 0xFFFF : entries.size()));
  put32(end, static_cast<std::uint32_t>(cd.size()));
  put32(end, zip64 ? 0xFFFFFFFFu : static_cast<std::uint32_t>(cd_offset));
  put16(end, 0);
  write(end.data(), end.size());
  if (bytes != nullptr) *bytes = offset;
  if (std::fflush(out) != 0) ok = false;
  return ok;
}

}  // namespace attn
