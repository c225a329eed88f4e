// NumPy's .npz archives (a zip of .npy files): load_npz and save_npz.
//
// The reader treats the file as untrusted. It finds the end-of-central-directory record (and its
// ZIP64 form), takes every entry's sizes, offset and CRC-32 from the central directory (so entries
// written with data descriptors read too), checks each against the file size before reading or
// allocating, inflates deflated entries with zlib, checks the CRC-32 and parses the .npy with the
// same parser as load_npy. Every problem is an IOError naming the file and the entry.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "io/files.hpp"
#include "io/npy.hpp"
#include "symx/array.hpp"

namespace symx {
namespace {

constexpr std::uint32_t kLocalSignature = 0x04034b50, kCentralSignature = 0x02014b50, kEndSignature = 0x06054b50,
                        kEnd64Signature = 0x06064b50, kLocator64Signature = 0x07064b50;
constexpr std::uint64_t kMax16 = 0xffff, kMax32 = 0xffffffff;
constexpr std::size_t kLocalSize = 30, kCentralSize = 46, kEndSize = 22, kEnd64Size = 56, kLocatorSize = 20;
// Deflate cannot expand data more than 1032-fold; a larger declared size is a lie (a zip bomb)
// and is refused before anything that size is allocated.
constexpr std::uint64_t kMaxDeflateRatio = 1032;
// 1980-01-01 00:00, the earliest DOS date: written for every entry so that equal arrays give
// byte-identical archives.
constexpr std::uint16_t kDosDate = (0 << 9) | (1 << 5) | 1;
const char kFix[] = "Save the archive with numpy.savez or numpy.savez_compressed.";

std::uint64_t get_le(const unsigned char* p, int bytes) {
  std::uint64_t v = 0;
  for (int i = bytes; i-- > 0;) v = v << 8 | p[i];
  return v;
}

void put_le(std::string& out, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}

// An archive open for reading; every read is checked against its size first.
struct Archive {
  std::string path;
  io::FileDescriptor file;
  std::uint64_t size = 0;

  [[noreturn]] void fail(const std::string& problem) const {
    throw IOError("load_npz: '" + path + "': " + problem + ". " + kFix);
  }
  // `n` bytes at `offset`; `what` names them in the error when the file is too short.
  std::vector<unsigned char> read(std::uint64_t offset, std::uint64_t n, const std::string& what) const {
    if (n > size || offset > size - n)
      fail("truncated: " + what + " at byte " + std::to_string(offset) + " needs " + std::to_string(n) +
           " bytes but the file has " + std::to_string(size));
    std::vector<unsigned char> out(n);
    for (std::uint64_t done = 0; done < n;) {
      ssize_t got = ::pread(file.fd, out.data() + done, std::min<std::uint64_t>(n - done, 1 << 30),
                            static_cast<off_t>(offset + done));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) fail("cannot read " + what + " (the file shrank while read, or " + std::strerror(errno) + ")");
      done += static_cast<std::uint64_t>(got);
    }
    return out;
  }
};

struct Directory {
  std::uint64_t entries = 0, offset = 0, size = 0;
};

// The ZIP64 end record that the locator just before the classic end record at `end` points to.
Directory read_zip64_end(const Archive& a, std::uint64_t end) {
  if (end < kLocatorSize) a.fail("the ZIP64 end-of-central-directory locator is missing");
  auto loc = a.read(end - kLocatorSize, kLocatorSize, "the ZIP64 end-of-central-directory locator");
  if (get_le(loc.data(), 4) != kLocator64Signature) a.fail("the ZIP64 end-of-central-directory locator is missing");
  if (get_le(loc.data() + 4, 4) != 0 || get_le(loc.data() + 16, 4) > 1)
    a.fail("it is a split (multi-disk) zip archive, which symx does not read");
  auto rec = a.read(get_le(loc.data() + 8, 8), kEnd64Size, "the ZIP64 end-of-central-directory record");
  if (get_le(rec.data(), 4) != kEnd64Signature) a.fail("the ZIP64 end-of-central-directory record has a bad signature");
  if (get_le(rec.data() + 16, 4) != 0 || get_le(rec.data() + 20, 4) != 0)
    a.fail("it is a split (multi-disk) zip archive, which symx does not read");
  return {get_le(rec.data() + 32, 8), get_le(rec.data() + 48, 8), get_le(rec.data() + 40, 8)};
}

// Finds the end-of-central-directory record in the last 64 KiB + 22 bytes (a record, then a
// comment of at most 64 KiB) and returns where the central directory is.
Directory read_end(const Archive& a) {
  const std::uint64_t tail_size = std::min<std::uint64_t>(a.size, kMax16 + kEndSize);
  if (tail_size < kEndSize) a.fail("not a zip archive (" + std::to_string(a.size) + " bytes, too short)");
  const std::uint64_t tail_at = a.size - tail_size;
  auto tail = a.read(tail_at, tail_size, "the end of the archive");
  for (std::uint64_t i = tail_size - kEndSize + 1; i-- > 0;) {
    const unsigned char* r = tail.data() + i;
    if (get_le(r, 4) != kEndSignature || i + kEndSize + get_le(r + 20, 2) > tail_size) continue;
    if (get_le(r + 4, 2) != 0 || get_le(r + 6, 2) != 0)
      a.fail("it is a split (multi-disk) zip archive, which symx does not read");
    Directory d{get_le(r + 10, 2), get_le(r + 16, 4), get_le(r + 12, 4)};
    if (d.entries == kMax16 || d.offset == kMax32 || d.size == kMax32) d = read_zip64_end(a, tail_at + i);
    if (d.size > a.size || d.offset > a.size - d.size)
      a.fail("the central directory (" + std::to_string(d.size) + " bytes at byte " + std::to_string(d.offset) +
             ") lies beyond the end of the file (" + std::to_string(a.size) +
             " bytes); the file is truncated or corrupt");
    if (d.entries > d.size / kCentralSize)
      a.fail("the end record declares " + std::to_string(d.entries) + " entries, more than its " +
             std::to_string(d.size) + "-byte central directory can hold");
    return d;
  }
  a.fail("not a zip archive (no end-of-central-directory record; the file is truncated or not a .npz)");
}

// One central-directory entry, with its ZIP64 fields resolved.
struct Entry {
  std::string name;
  std::uint64_t method = 0, flags = 0, crc = 0, compressed = 0, uncompressed = 0, local_offset = 0;
};

// Replaces the 32-bit fields that hold 0xffffffff by their values from the ZIP64 extra field
// (id 1), which lists them in this order: uncompressed size, compressed size, local offset.
void apply_zip64(const Archive& a, Entry& e, const unsigned char* extra, std::size_t n) {
  std::uint64_t* fields[] = {&e.uncompressed, &e.compressed, &e.local_offset};
  for (std::size_t at = 0; at + 4 <= n;) {
    const std::size_t id = get_le(extra + at, 2), len = get_le(extra + at + 2, 2);
    if (len > n - at - 4) a.fail("entry '" + e.name + "' has a truncated extra field");
    if (id == 1) {
      std::size_t pos = at + 4;
      for (auto* f : fields) {
        if (*f != kMax32) continue;
        if (pos + 8 > at + 4 + len) a.fail("entry '" + e.name + "' has a ZIP64 extra field too short for its sizes");
        *f = get_le(extra + pos, 8);
        pos += 8;
      }
      return;
    }
    at += 4 + len;
  }
  for (auto* f : fields)
    if (*f == kMax32) a.fail("entry '" + e.name + "' needs a ZIP64 extra field for its sizes but has none");
}

// Parses the entry at `p` (with `left` bytes of the directory left); advances `p`.
Entry parse_central_entry(const Archive& a, const unsigned char*& p, std::uint64_t left) {
  if (left < kCentralSize || get_le(p, 4) != kCentralSignature)
    a.fail("the central directory is corrupt (an entry is truncated or has a bad signature)");
  const std::size_t name_len = get_le(p + 28, 2), extra_len = get_le(p + 30, 2), comment_len = get_le(p + 32, 2);
  if (kCentralSize + name_len + extra_len + comment_len > left)
    a.fail("the central directory is corrupt (an entry overruns it)");
  Entry e;
  e.name.assign(reinterpret_cast<const char*>(p + kCentralSize), name_len);
  e.flags = get_le(p + 8, 2);
  e.method = get_le(p + 10, 2);
  e.crc = get_le(p + 16, 4);
  e.compressed = get_le(p + 20, 4);
  e.uncompressed = get_le(p + 24, 4);
  e.local_offset = get_le(p + 42, 4);
  apply_zip64(a, e, p + kCentralSize + name_len, extra_len);
  p += kCentralSize + name_len + extra_len + comment_len;
  return e;
}

std::string method_name(std::uint64_t method) {
  switch (method) {
    case 1: return " (shrink)";
    case 6: return " (implode)";
    case 9: return " (deflate64)";
    case 12: return " (bzip2)";
    case 14: return " (LZMA)";
    case 93: return " (zstd)";
    case 95: return " (xz)";
    case 99: return " (AES encryption)";
    default: return "";
  }
}

void check_entry(const Archive& a, const Entry& e) {
  const std::string entry = "entry '" + e.name + "'";
  if (e.name.size() < 4 || e.name.compare(e.name.size() - 4, 4, ".npy") != 0)
    a.fail(entry + " is not a .npy file (an .npz holds only <name>.npy entries)");
  if (e.flags & 1) a.fail(entry + " is encrypted, which symx does not read");
  if (e.method != 0 && e.method != 8)
    a.fail(entry + " is compressed with method " + std::to_string(e.method) + method_name(e.method) +
           "; symx reads stored and deflated entries");
  if (e.method == 0 && e.compressed != e.uncompressed)
    a.fail(entry + " is stored uncompressed but its sizes differ (" + std::to_string(e.compressed) + " and " +
           std::to_string(e.uncompressed) + " bytes)");
  if (e.method == 8 && e.uncompressed > e.compressed * kMaxDeflateRatio + 64)
    a.fail(entry + " declares " + std::to_string(e.uncompressed) + " bytes, more than its " +
           std::to_string(e.compressed) + " deflated bytes can hold");
  if (e.uncompressed > static_cast<std::uint64_t>(kMaxArrayBytes) + (std::uint64_t{1} << 24))
    a.fail(entry + " declares " + std::to_string(e.uncompressed) + " bytes, more than the largest array symx builds");
}

std::vector<Entry> read_directory(const Archive& a) {
  const Directory d = read_end(a);
  auto bytes = a.read(d.offset, d.size, "the central directory");
  const unsigned char* p = bytes.data();
  std::vector<Entry> entries;
  std::map<std::string, int> seen;
  for (std::uint64_t i = 0; i < d.entries; ++i) {
    Entry e = parse_central_entry(a, p, d.size - static_cast<std::uint64_t>(p - bytes.data()));
    check_entry(a, e);
    if (seen[e.name]++) a.fail("entry '" + e.name + "' appears twice; names in an .npz must be unique");
    entries.push_back(std::move(e));
  }
  return entries;
}

// Where the entry's data start: after its local header, whose name must match the directory's.
std::uint64_t data_offset(const Archive& a, const Entry& e) {
  const std::string entry = "entry '" + e.name + "'";
  auto h = a.read(e.local_offset, kLocalSize, "the local header of " + entry);
  if (get_le(h.data(), 4) != kLocalSignature) a.fail("the local header of " + entry + " has a bad signature");
  const std::uint64_t name_len = get_le(h.data() + 26, 2), extra_len = get_le(h.data() + 28, 2);
  auto name = a.read(e.local_offset + kLocalSize, name_len, "the local header of " + entry);
  if (std::string(name.begin(), name.end()) != e.name)
    a.fail("the local header of " + entry + " names another entry; the archive is corrupt");
  return e.local_offset + kLocalSize + name_len + extra_len;
}

std::vector<unsigned char> inflate_entry(const Archive& a, const Entry& e, std::vector<unsigned char> in) {
  std::vector<unsigned char> out(e.uncompressed);
  z_stream z{};
  if (inflateInit2(&z, -15) != Z_OK) a.fail("zlib could not start inflating entry '" + e.name + "'");
  int status = Z_OK;
  std::uint64_t in_at = 0, out_at = 0;
  while (status == Z_OK) {
    // zlib counts in 32 bits: feed both buffers in chunks of at most 1 GiB.
    z.next_in = in.data() + in_at;
    z.avail_in = static_cast<uInt>(std::min<std::uint64_t>(in.size() - in_at, 1 << 30));
    z.next_out = out.data() + out_at;
    z.avail_out = static_cast<uInt>(std::min<std::uint64_t>(out.size() - out_at, 1 << 30));
    const uInt given_in = z.avail_in, given_out = z.avail_out;
    status = inflate(&z, Z_NO_FLUSH);
    in_at += given_in - z.avail_in;
    out_at += given_out - z.avail_out;
    if (status == Z_BUF_ERROR && given_in - z.avail_in == 0 && given_out - z.avail_out == 0) break;
    if (status == Z_BUF_ERROR) status = Z_OK;
  }
  const std::string message = z.msg ? z.msg : "";
  inflateEnd(&z);
  if (status != Z_STREAM_END || out_at != out.size())
    a.fail("entry '" + e.name + "' has corrupt deflated data (" +
           (status == Z_STREAM_END ? "it inflates to " + std::to_string(out_at) + " bytes, not the " +
                                         std::to_string(out.size()) + " its header declares"
            : message.empty() ? "the stream ends early or overruns its declared size"
                              : "zlib: " + message) +
           ")");
  return out;
}

// zlib's CRC-32 continued over `n` bytes (zlib restarts at 0 when given a null buffer, which an
// empty array may have, so empty data leave `crc` as it is).
std::uint32_t crc32_of(std::uint32_t crc, const void* data, std::size_t n) {
  if (n == 0) return crc;
  return static_cast<std::uint32_t>(crc32_z(crc, static_cast<const Bytef*>(data), n));
}

Array read_entry(const Archive& a, const Entry& e) {
  const std::uint64_t at = data_offset(a, e);
  auto data = a.read(at, e.compressed, "the data of entry '" + e.name + "'");
  if (e.method == 8) data = inflate_entry(a, e, std::move(data));
  if (crc32_of(0, data.data(), data.size()) != e.crc)
    a.fail("entry '" + e.name + "' fails its CRC-32 check; the archive is corrupt");
  const io::NpyOrigin origin{
      "load_npz: '" + a.path + "': entry '" + e.name + "'",
      std::string(kFix) +
          " symx reads arrays of bool, uint8, int32, int64, float32, float64, complex64 or complex128."};
  return io::parse_npy(origin, data.data(), data.size());
}

// ---- writing ----

// The local header of a stored entry, with the ZIP64 extra field that numpy.savez writes too
// (it makes any size representable without knowing it in advance).
std::string local_header(const std::string& name, std::uint32_t crc, std::uint64_t size) {
  std::string h;
  put_le(h, kLocalSignature, 4);
  put_le(h, 45, 2);     // version 4.5: ZIP64
  put_le(h, 0x800, 2);  // names are UTF-8
  put_le(h, 0, 2);      // stored
  put_le(h, 0, 2);
  put_le(h, kDosDate, 2);
  put_le(h, crc, 4);
  put_le(h, kMax32, 4);
  put_le(h, kMax32, 4);
  put_le(h, name.size(), 2);
  put_le(h, 20, 2);
  h += name;
  put_le(h, 1, 2);
  put_le(h, 16, 2);
  put_le(h, size, 8);
  put_le(h, size, 8);
  return h;
}

// The central-directory entry; ZIP64 fields only for the values that do not fit in 32 bits.
std::string central_entry(const std::string& name, std::uint32_t crc, std::uint64_t size, std::uint64_t offset) {
  std::string extra;
  for (std::uint64_t v : {size, size, offset})
    if (v >= kMax32) put_le(extra, v, 8);
  if (!extra.empty()) extra = std::string{1, 0, static_cast<char>(extra.size()), 0} + extra;
  std::string h;
  put_le(h, kCentralSignature, 4);
  put_le(h, 0x0300 | 45, 2);  // made on Unix, version 4.5
  put_le(h, 45, 2);
  put_le(h, 0x800, 2);
  put_le(h, 0, 2);
  put_le(h, 0, 2);
  put_le(h, kDosDate, 2);
  put_le(h, crc, 4);
  put_le(h, std::min(size, kMax32), 4);
  put_le(h, std::min(size, kMax32), 4);
  put_le(h, name.size(), 2);
  put_le(h, extra.size(), 2);
  put_le(h, 0, 2);                             // comment
  put_le(h, 0, 2);                             // disk
  put_le(h, 0, 2);                             // internal attributes
  put_le(h, std::uint64_t{0100644} << 16, 4);  // a regular file, rw-r--r--
  put_le(h, std::min(offset, kMax32), 4);
  return h + name + extra;
}

// The end records: ZIP64 ones first when a count, size or offset does not fit the classic record.
std::string end_records(std::uint64_t entries, std::uint64_t dir_offset, std::uint64_t dir_size) {
  std::string out;
  if (entries >= kMax16 || dir_offset >= kMax32 || dir_size >= kMax32) {
    put_le(out, kEnd64Signature, 4);
    put_le(out, kEnd64Size - 12, 8);
    put_le(out, 0x0300 | 45, 2);
    put_le(out, 45, 2);
    put_le(out, 0, 8);  // this disk, the directory's disk
    put_le(out, entries, 8);
    put_le(out, entries, 8);
    put_le(out, dir_size, 8);
    put_le(out, dir_offset, 8);
    put_le(out, kLocator64Signature, 4);
    put_le(out, 0, 4);
    put_le(out, dir_offset + dir_size, 8);
    put_le(out, 1, 4);
  }
  put_le(out, kEndSignature, 4);
  put_le(out, 0, 4);
  put_le(out, std::min(entries, kMax16), 2);
  put_le(out, std::min(entries, kMax16), 2);
  put_le(out, std::min(dir_size, kMax32), 4);
  put_le(out, std::min(dir_offset, kMax32), 4);
  put_le(out, 0, 2);
  return out;
}

}  // namespace

std::map<std::string, Array> load_npz(const std::string& path) {
  Archive a{path, io::FileDescriptor(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK))};
  if (a.file.fd < 0)
    throw IOError("load_npz: cannot open '" + path + "' for reading (" + std::strerror(errno) + "). Check the path.");
  struct stat info {};
  if (::fstat(a.file.fd, &info) != 0 || !S_ISREG(info.st_mode)) a.fail("not a regular file");
  a.size = static_cast<std::uint64_t>(info.st_size);
  std::map<std::string, Array> out;
  for (const Entry& e : read_directory(a)) out.emplace(e.name.substr(0, e.name.size() - 4), read_entry(a, e));
  return out;
}

void save_npz(const std::string& path, const std::map<std::string, Array>& arrays) {
  for (const auto& [key, array] : arrays)
    if (key.size() + 4 > kMax16)
      throw ValueError("save_npz: the name '" + key.substr(0, 40) + "...' is " + std::to_string(key.size()) +
                       " bytes long; zip entry names hold at most 65531 bytes plus '.npy'. Use a shorter name.");
  io::write_file_atomically(path, "save_npz", [&](int fd) {
    std::string directory;
    std::uint64_t offset = 0;
    for (const auto& [key, array] : arrays) {
      const std::string name = key + ".npy", preamble = io::npy_preamble(array.shape(), array.dtype());
      const std::uint64_t size = preamble.size() + array.nbytes();
      const std::uint32_t crc =
          crc32_of(crc32_of(0, preamble.data(), preamble.size()), array.raw_data(), array.nbytes());
      const std::string header = local_header(name, crc, size);
      directory += central_entry(name, crc, size, offset);
      io::write_all(fd, header.data(), header.size());
      io::write_all(fd, preamble.data(), preamble.size());
      io::write_all(fd, static_cast<const char*>(array.raw_data()), array.nbytes());
      offset += header.size() + size;
    }
    const std::string end = end_records(arrays.size(), offset, directory.size());
    io::write_all(fd, directory.data(), directory.size());
    io::write_all(fd, end.data(), end.size());
  });
}

}  // namespace symx
