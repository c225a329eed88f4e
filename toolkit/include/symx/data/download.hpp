// symx/data/download.hpp: downloads of the standard data sets (MNIST, Fashion-MNIST, CIFAR-10,
// CIFAR-100) over HTTPS into a cache folder, each file checked against a SHA-256 sum pinned in symx
// (symx::data; Python symx.data.download; the tool's `symx data download`).
//
// Trust: the sums are pinned in symx (download.cpp names where they come from). A mirror (the
// option or SYMX_DATA_MIRROR) changes only where the bytes come from: they are still checked
// against the pinned sums. Only a caller that passes its own sums file (DownloadOptions::checksums)
// changes what counts as the right bytes; no environment variable can.
//
// On disk: a file is fetched into FILE.part (resumed with an HTTP Range request when a previous
// attempt stopped), checked, flushed to disk and renamed to FILE, so FILE is never partial or
// wrong. The part is opened with O_NOFOLLOW and must be a regular file of this user with one link
// (a planted link or other file in its place is removed, never written through); a new part is
// created with O_EXCL. An archive (CIFAR's tar.gz) is extracted next to itself the same way: into a temporary
// folder first, then renamed into place.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace symx::data {

// Reports the progress of one file: its name, the bytes of it on disk so far (a resumed part
// counts) and its size (-1 when unknown). Called at most about ten times a second and once when the
// file is complete. An exception it throws stops the download and is rethrown by download().
using DownloadProgress = std::function<void(const std::string& file, std::int64_t done, std::int64_t total)>;

// The default of DownloadOptions::timeout for a file of `bytes` bytes: 300 s plus 1 s per 50 kB
// (an average of 50 kB/s at least).
// Example: default_transfer_timeout(9912422) is about 498
double default_transfer_timeout(std::int64_t bytes);

// Options of download().
struct DownloadOptions {
  // Base URL of a mirror that holds the files as MIRROR/<data set>/<file> (the layout of the
  // download folder itself, so a served download folder is a mirror); "" reads SYMX_DATA_MIRROR,
  // and when that is unset too, the pinned URLs are used.
  std::string mirror;
  // A PEM file of certificate authorities to trust instead of the system's (a private mirror with
  // its own certificate); "" uses the system's.
  std::string ca_file;
  // A file of `SHA256  FILE` lines (sha256sum's output; FILE is the file name or <data set>/<file>)
  // whose sums replace the pinned ones, for a mirror of other files; "" uses the pinned sums. It
  // must list every file of the data set. The sizes are then unknown, but capped from the pinned
  // ones: a file of more than twice its pinned size plus 1 MiB is refused while it arrives.
  std::string checksums;
  DownloadProgress progress;
  // Receives the messages (what is fetched from where, resumed, already present); unset, they go
  // to stderr unless `quiet`.
  std::function<void(const std::string& line)> log;
  double connect_timeout = 30;  // seconds to connect to a server
  double stall_timeout = 60;    // seconds without a byte before a connection is given up
  int retries = 3;              // new attempts after a dropped connection, each resuming the part
  // Seconds for one file's whole transfer, every attempt and mirror included (a server that
  // trickles a byte a second never stalls, so the stall timeout alone does not bound it); 0: the
  // default_transfer_timeout of the file's size.
  double timeout = 0;
  bool quiet = false;  // no messages on stderr (`log`, when set, still gets them)
};

// One file of a data set, as pinned in symx.
struct DatasetFile {
  std::string name;         // the file name, e.g. "train-images-idx3-ubyte.gz"
  std::int64_t size;        // bytes
  std::string sha256;       // 64 lowercase hex digits
  std::string extracts_to;  // for an archive, the folder it holds (extracted next to it); else ""
};

// A data set that download() knows: its name, the base URLs tried in order, and its files.
struct DatasetSource {
  std::string name;               // "mnist", "fashion-mnist", "cifar10" or "cifar100"
  std::vector<std::string> urls;  // base URLs; a file's URL is the base followed by its name
  std::vector<DatasetFile> files;
};

// The data sets download() knows, with their pinned URLs, sizes and sums.
// Example: dataset_sources()[0].name is "mnist"
const std::vector<DatasetSource>& dataset_sources();

// The folder download() uses when it is given none: $SYMX_DATA_DIR, else
// $XDG_CACHE_HOME/symx/data, else $HOME/.cache/symx/data.
// Example: default_data_dir() is "/home/me/.cache/symx/data"
std::string default_data_dir();

// Downloads the data set `name` ("mnist", "fashion-mnist", "cifar10" or "cifar100") into the folder
// `dir`/`name` (`dir` "" is default_data_dir()) and returns that folder, ready for the matching
// reader of symx/data.hpp (load_mnist, load_fashion_mnist, load_cifar10, load_cifar100). A file
// already there with the right sum is not fetched again; a part left by an interrupted download is
// resumed. An unknown name is a ValueError listing the known ones; a failure (network, HTTP status,
// disk, a sum that does not match) is an IOError naming the URL, the file and the cause, with a fix.
// Example: load_mnist(download("mnist"), "test")
std::string download(const std::string& name, const std::string& dir = "", const DownloadOptions& options = {});

// The SHA-256 of a file's contents as 64 lowercase hex digits (an IOError when it cannot be read).
// Example: sha256_file("mnist/t10k-labels-idx1-ubyte.gz")
std::string sha256_file(const std::string& path);

// The SHA-256 of `bytes` as 64 lowercase hex digits.
// Example: sha256_hex("abc") is "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
std::string sha256_hex(std::string_view bytes);

// Extracts the tar archive `archive` (gzip-compressed or not) into the folder `dir`, atomically:
// everything goes to a temporary folder in `dir` first, and only when the whole archive is read
// are its top-level entries renamed into `dir`. Only files and folders are extracted: an absolute
// path, a ".." component, a link or a device is an IOError naming the entry, as is a top-level
// entry that already exists in `dir`; on any error nothing is left in `dir`. Returns the top-level
// entries' names. Crafted archives are bounded: at most `max_bytes` extracted in all (0: the
// default_extract_budget of the archive's size), at most 100,000 entries, an entry's data must
// match the size its header announces, and a sparse entry is refused (IOError naming it); the
// archive must be a regular file (a FIFO or device is refused without blocking).
// Example: extract_archive("cifar10/cifar-10-binary.tar.gz", "cifar10") is {"cifar-10-batches-bin"}
std::vector<std::string> extract_archive(const std::string& archive, const std::string& dir,
                                         std::uint64_t max_bytes = 0);
// The bytes extract_archive may write for an archive of `archive_bytes` bytes by default: 64 MiB
// plus 4 times the archive (CIFAR's gzip-compressed archives expand by less than 1.1).
// Example: default_extract_budget(170052171) is 747317548
std::uint64_t default_extract_budget(std::uint64_t archive_bytes);

}  // namespace symx::data
