// symx.data.download: the data set downloads of symx/data/download.hpp.
#include "symx/data/download.hpp"
#include "binding_common.hpp"

void bind_download(nb::module_& m) {
  // The transfer runs without the GIL so that other Python threads go on. The progress callback
  // (file, done, total) takes the GIL, checks for Ctrl-C (KeyboardInterrupt stops the download and
  // leaves the part file for a later resume) and calls the Python callback, if any; an exception
  // it raises stops the download and reaches the caller.
  m.def(
      "download",
      [](const std::string& name, const std::optional<std::filesystem::path>& dir, const std::optional<std::string>& mirror,
         const std::optional<std::filesystem::path>& ca_file, const std::optional<std::filesystem::path>& checksums,
         const std::optional<nb::callable>& callback,
         double connect_timeout, double stall_timeout, int retries, bool quiet) {
        symx::data::DownloadOptions options;
        options.mirror = mirror.value_or("");
        options.ca_file = ca_file ? ca_file->string() : "";
        options.checksums = checksums ? checksums->string() : "";
        options.connect_timeout = connect_timeout;
        options.stall_timeout = stall_timeout;
        options.retries = retries;
        options.quiet = quiet;
        nb::handle progress = callback ? callback->ptr() : nb::handle();  // kept alive by the caller's arguments
        options.progress = [progress](const std::string& file, std::int64_t done, std::int64_t total) {
          nb::gil_scoped_acquire acquire;
          if (PyErr_CheckSignals() != 0) throw nb::python_error();
          if (progress) progress(file, done, total);
        };
        nb::gil_scoped_release release;
        return symx::data::download(name, dir ? dir->string() : "", options);
      },
      "name"_a, "dir"_a = nb::none(), nb::kw_only(), "mirror"_a = nb::none(), "ca_file"_a = nb::none(),
      "checksums"_a = nb::none(), "progress"_a = nb::none(), "connect_timeout"_a = 30.0, "stall_timeout"_a = 60.0,
      "retries"_a = 3, "quiet"_a = false, DOC(data_download));
}
