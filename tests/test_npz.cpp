// The .npz writer (src/render/npz_writer.cpp): zip's CRC-32 by every path it has (carry-less
// multiplication, tables, pieces on threads) against a bit-by-bit loop, and an archive a lesson
// wrote read back field by field: every member's CRC, sizes and offset, the central directory and
// the end record. (tests/test_output_convention.cpp has numpy read it.)
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "npz_writer.h"
#include "parallel.h"
#include "run_cli.h"

// Everything in this file lives in its own namespace: the tests are compiled as unity batches.
namespace file_test_npz {

using namespace attn;

namespace {

// The CRC as its definition says: one bit at a time, the reflected polynomial 0xEDB88320.
std::uint32_t crc_bitwise(std::uint32_t crc, const unsigned char* p, std::size_t n) {
  crc = ~crc;
  for (std::size_t i = 0; i < n; ++i) {
    crc ^= p[i];
    for (int k = 0; k < 8; ++k) crc = (crc & 1) ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
  }
  return ~crc;
}

std::vector<unsigned char> noise(std::size_t n, std::uint64_t seed) {
  std::vector<unsigned char> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    v[i] = static_cast<unsigned char>(seed >> 56);
  }
  return v;
}

std::uint32_t le(const std::string& s, std::size_t at, int bytes) {
  std::uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = v << 8 | static_cast<unsigned char>(s.at(at + static_cast<std::size_t>(i)));
  return v;
}

struct ThreadsGuard {
  ~ThreadsGuard() { set_threads(0); }
};

}  // namespace

TEST_CASE("npz: CRC-32 of every length and alignment is the bit-by-bit loop's, by both paths", "[npz]") {
  const unsigned char check[] = {'1', '2', '3', '4', '5', '6', '7', '8', '9'};
  CHECK(crc32_ieee(0, check, 9) == 0xCBF43926u);  // the standard check value
  CHECK(crc32_ieee_table(0, check, 9) == 0xCBF43926u);
  CHECK(crc32_ieee(0, check, 0) == 0);
  // lengths below, at and past the 64 bytes the carry-less path starts at, every remainder mod 16,
  // every start within 8 bytes (the loads are unaligned)
  const std::vector<unsigned char> v = noise(1200, 7);
  std::size_t checked = 0;
  for (std::size_t start = 0; start < 8; ++start)
    for (std::size_t n = 0; start + n <= 1100; n += (n < 300 ? 1 : 37)) {
      const std::uint32_t want = crc_bitwise(0, v.data() + start, n);
      INFO("start " << start << ", " << n << " bytes");
      REQUIRE(crc32_ieee(0, v.data() + start, n) == want);
      REQUIRE(crc32_ieee_table(0, v.data() + start, n) == want);
      ++checked;
    }
  CHECK(checked > 2000);
  // continuing from a CRC: two pieces give the whole's
  for (std::size_t cut : {0, 1, 63, 64, 65, 500, 1200}) {
    INFO("cut at " << cut);
    CHECK(crc32_ieee(crc32_ieee(0, v.data(), cut), v.data() + cut, v.size() - cut) == crc_bitwise(0, v.data(), v.size()));
    CHECK(crc32_ieee_table(crc32_ieee_table(0, v.data(), cut), v.data() + cut, v.size() - cut) ==
          crc_bitwise(0, v.data(), v.size()));
  }
}

TEST_CASE("npz: a large buffer's CRC, in pieces on 1 to 3 threads, is one thread's", "[npz]") {
  ThreadsGuard guard;
  // past two 4 MiB pieces, a last piece of odd length, continued from a nonzero CRC
  const std::vector<unsigned char> v = noise((std::size_t{21} << 20) + 13, 11);
  const std::uint32_t want = crc_bitwise(0x1234567u, v.data(), v.size());
  CHECK(crc32_ieee_table(0x1234567u, v.data(), v.size()) == want);
  for (std::size_t threads : {1, 2, 3}) {
    set_threads(threads);
    INFO(threads << " threads");
    CHECK(crc32_ieee(0x1234567u, v.data(), v.size()) == want);
  }
}

TEST_CASE("npz: an archive read back field by field: each member's CRC, size and offset, the directory, the end", "[npz]") {
  const std::string path = "/tmp/attnlab_npz_" + std::to_string(::getpid()) + ".npz";
  // small tensors, and d_model 768: weights of 4.7 MB, written in 1 MiB pieces, their CRCs on threads
  const std::string run = GENERATE(as<std::string>{}, "lesson gqa --causal --seq-len 9", "lesson mha --d-model 768 --heads 12 --seq-len 64");
  INFO(run);
  CliResult r = run_cli(run + " --npz " + path + " --lang en");
  REQUIRE(r.code == 0);
  const std::string z = slurp(path);
  std::remove(path.c_str());
  REQUIRE(z.size() > 22);
  // the end record: the last 22 bytes (no comment, no ZIP64 at this size)
  const std::size_t end = z.size() - 22;
  REQUIRE(le(z, end, 4) == 0x06054b50u);
  const std::uint32_t members = le(z, end + 10, 2), cd_size = le(z, end + 12, 4), cd_offset = le(z, end + 16, 4);
  CHECK(cd_offset + cd_size == end);
  CHECK(members == le(z, end + 8, 2));
  REQUIRE(members >= 10);
  std::size_t at = cd_offset, next_local = 0;
  for (std::uint32_t m = 0; m < members; ++m) {
    REQUIRE(le(z, at, 4) == 0x02014b50u);
    const std::uint32_t crc = le(z, at + 16, 4), size = le(z, at + 20, 4), name_len = le(z, at + 28, 2);
    const std::uint32_t local = le(z, at + 42, 4);
    const std::string name = z.substr(at + 46, name_len);
    INFO(name);
    CHECK(le(z, at + 24, 4) == size);  // stored: compressed size = size
    CHECK(local == next_local);        // members one after the other, in order
    // its local header says the same
    REQUIRE(le(z, local, 4) == 0x04034b50u);
    CHECK(le(z, local + 8, 2) == 0);  // stored
    CHECK(le(z, local + 14, 4) == crc);
    CHECK(le(z, local + 18, 4) == size);
    CHECK(z.substr(local + 30, le(z, local + 26, 2)) == name);
    const std::size_t data = local + 30 + name_len;
    // the .npy: magic, version 1.0, the dict padded so that the numbers start on 64 bytes
    CHECK(z.substr(data, 8) == std::string("\x93NUMPY\x01\x00", 8));
    const std::size_t header = 10 + le(z, data + 8, 2);
    CHECK(header % 64 == 0);
    const std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (";
    CHECK(z.substr(data + 10, dict.size()) == dict);
    CHECK((size - header) % 8 == 0);
    // the CRC of the member's bytes, by the tables alone (the first test checks them bit by bit)
    CHECK(crc == crc32_ieee_table(0, z.data() + data, size));
    next_local = data + size;
    at += 46 + name_len;
  }
  CHECK(next_local == cd_offset);
  CHECK(at == end);
}

}  // namespace file_test_npz
