// python/binding_data.cpp: symx.data (toolkit/include/symx/data.hpp): the readers, splits and
// transforms, BatchIterator, which iterates one epoch per `for` loop, and download
// (symx/data/download.hpp).
//
// Threads and the GIL: BatchIterator's background thread calls Python transforms with the GIL
// acquired, so every wait for it (next(), restore(), destruction) releases the GIL first. The
// iterator's Python callables are kept by the wrapper, which outlives the C++ iterator, so the C++
// side holds plain pointers and never needs the GIL to drop them. An atexit hook stops every live
// iterator's thread while the interpreter can still run it to the end of a transform.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cmath>
#include <mutex>
#include <set>

#include "binding_common.hpp"
#include "binding_data.hpp"
#include "symx/data.hpp"
#include "symx/data/download.hpp"

namespace {

namespace data = symx::data;
using namespace symx_binding;

// A C++ transform as a Python object.
struct PyTransform {
  data::Transform fn;
  std::string repr;
};

std::string shape_text(const symx::Array& a) {
  return std::string(symx::dtype_name(a.dtype())) + " " + symx::shape_string(a.shape());
}

// A new NumPy array over a batch array: writable when nothing else shares it.
nb::object batch_array(symx::Array a) {
  return a.is_unique() ? writable_array_to_python(std::move(a)) : array_to_python(a);
}

std::vector<symx::Array> arrays_from_result(nb::handle result) {
  std::vector<symx::Array> out;
  if (nb::isinstance<nb::tuple>(result) || nb::isinstance<nb::list>(result)) {
    for (nb::handle item : result) out.push_back(array_from_python(item));
  } else {
    out.push_back(array_from_python(result));
  }
  return out;
}

// A Python callable (arrays..., seed) -> tuple of arrays as a C++ transform. `fn` is borrowed: the
// iterator's wrapper keeps it alive for longer than the C++ iterator.
data::Transform python_transform(PyObject* fn) {
  return [fn](std::vector<symx::Array> batch, std::uint64_t seed) {
    nb::gil_scoped_acquire gil;
    nb::list args;
    for (symx::Array& a : batch) args.append(batch_array(std::move(a)));
    args.append(nb::int_(seed));
    nb::tuple packed(args);
    PyObject* result = PyObject_Call(fn, packed.ptr(), nullptr);
    if (!result) throw nb::python_error();
    return arrays_from_result(nb::steal(result));
  };
}

}  // namespace

std::vector<symx::data::Transform> transforms_from_python(nb::handle transforms, std::vector<nb::object>& keep,
                                                          const char* who) {
  std::vector<symx::data::Transform> out;
  if (transforms.is_none()) return out;
  for (nb::handle t : transforms) {
    if (nb::isinstance<PyTransform>(t)) {
      out.push_back(nb::cast<const PyTransform&>(t).fn);
    } else if (PyCallable_Check(t.ptr())) {
      keep.push_back(nb::borrow<nb::object>(t));
      out.push_back(python_transform(t.ptr()));
    } else {
      throw nb::type_error((std::string(who) +
                            ": a transform must be a symx.data transform (divide_by_max(), "
                            "to_float32(), standardize_channels()) or a callable (arrays..., seed) -> tuple of arrays, "
                            "not " +
                            nb::cast<std::string>(nb::repr(t.type())) + ".")
                               .c_str());
    }
  }
  return out;
}

namespace {

struct PyBatchIterator;
std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}
std::set<PyBatchIterator*>& registry() {  // live iterators, for the atexit hook
  static std::set<PyBatchIterator*> live;
  return live;
}

struct PyBatchIterator {
  std::vector<nb::object> keep;  // the Python transforms, borrowed by the C++ iterator
  std::unique_ptr<data::BatchIterator> it;
  std::mutex use;  // one caller at a time (taken with the GIL released)

  PyBatchIterator(std::vector<symx::Array> arrays, data::BatchOptions options, std::vector<nb::object> py)
      : keep(std::move(py)), it(std::make_unique<data::BatchIterator>(std::move(arrays), std::move(options))) {
    std::lock_guard lock(registry_mutex());
    registry().insert(this);
  }
  ~PyBatchIterator() {
    {
      std::lock_guard lock(registry_mutex());
      registry().erase(this);
    }
    nb::gil_scoped_release released;  // the thread may be waiting for the GIL in a transform
    it.reset();
  }
  // The next batch as a tuple of NumPy arrays, or None at the end of the epoch.
  nb::object next() {
    std::optional<std::vector<symx::Array>> batch;
    data::IteratorState at;
    try {
      nb::gil_scoped_release released;
      std::lock_guard lock(use);
      at = it->state();
      batch = it->next();
    } catch (nb::python_error& e) {
      // A Python transform failed: keep its type and traceback, and say which batch it was.
      std::string note = "in symx.data.BatchIterator, on batch " + std::to_string(at.batch) + " of epoch " +
                         std::to_string(at.epoch) + " (seed " + std::to_string(at.seed) + ")";
      nb::handle value = e.value();
      if (PyObject_HasAttrString(value.ptr(), "add_note")) value.attr("add_note")(note);
      throw;
    }
    if (!batch) return nb::none();
    nb::list out;
    for (symx::Array& a : *batch) out.append(batch_array(std::move(a)));
    return nb::tuple(out);
  }
  void stop() {  // stops the thread, keeping the position
    nb::gil_scoped_release released;
    std::lock_guard lock(use);
    it->restore(it->state());
  }
};

// One epoch of a BatchIterator, for `for xb, yb in it`.
struct PyEpoch {
  nb::object owner;
  bool done = false;
};

void stop_all_iterators() {
  std::vector<PyBatchIterator*> live;
  {
    std::lock_guard lock(registry_mutex());
    live.assign(registry().begin(), registry().end());
  }
  for (PyBatchIterator* p : live) p->stop();
}

std::vector<symx::Array> arrays_argument(nb::handle arrays) {
  if (nb::isinstance<data::Dataset>(arrays)) {
    const auto& d = nb::cast<const data::Dataset&>(arrays);
    if (d.y.size() == 0) return {d.x};
    return {d.x, d.y};
  }
  if (PyObject_TypeCheck(arrays.ptr(), reinterpret_cast<PyTypeObject*>(ndarray_type())))
    throw nb::type_error("symx.data.BatchIterator: `arrays` is one array; pass a list of arrays, e.g. [x, y] or [x].");
  std::vector<symx::Array> out;
  for (nb::handle a : arrays) out.push_back(array_from_python(a));
  return out;
}

nb::object stats_pair(std::pair<symx::Array, symx::Array> p) {
  return nb::make_tuple(writable_array_to_python(std::move(p.first)), writable_array_to_python(std::move(p.second)));
}

void bind_dataset(nb::module_& m) {
  nb::class_<data::Dataset>(m, "Dataset", DOC(data_Dataset))
      .def(
          "__init__",
          [](data::Dataset* self, nb::handle x, nb::handle y) {
            data::Dataset d;
            d.x = array_from_python(x);
            d.y = y.is_none() ? symx::Array::empty({0}, symx::DType::i64) : array_from_python(y);
            if (d.x.ndim() == 0)
              throw symx::ShapeError("symx.data.Dataset: x is a scalar; it needs a first axis of examples.");
            if (d.y.size() != 0 && (d.y.ndim() != 1 || d.y.shape()[0] != d.x.shape()[0]))
              throw symx::ShapeError("symx.data.Dataset: y has shape " + symx::shape_string(d.y.shape()) +
                                     " but x has shape " + symx::shape_string(d.x.shape()) +
                                     "; y must be (N,) with N = x's first axis.");
            if (d.y.dtype() != symx::DType::i64) {
              if (!symx::is_integer(d.y.dtype()) && d.y.size() != 0)
                throw symx::DTypeError("symx.data.Dataset: labels y are " + std::string(symx::dtype_name(d.y.dtype())) +
                                       "; they must be integers.");
              d.y = d.y.astype(symx::DType::i64);
            }
            new (self) data::Dataset(std::move(d));
          },
          "x"_a, "y"_a = nb::none(), DOC(data_Dataset_init))
      .def_prop_ro(
          "x", [](const data::Dataset& d) { return writable_array_to_python(d.x); }, DOC(data_Dataset_x))
      .def_prop_ro(
          "y", [](const data::Dataset& d) { return writable_array_to_python(d.y); }, DOC(data_Dataset_y))
      .def_prop_ro("size", &data::Dataset::size, DOC(data_Dataset_size))
      .def("__len__", &data::Dataset::size, DOC(data_Dataset_size))
      .def("__repr__", [](const data::Dataset& d) {
        return "symx.data.Dataset(x: " + shape_text(d.x) + ", y: " + shape_text(d.y) + ")";
      });
}

void bind_readers(nb::module_& m) {
  m.def(
      "read_idx",
      [](const std::string& path) {
        symx::Array a;
        {
          nb::gil_scoped_release released;
          a = data::read_idx(path);
        }
        return writable_array_to_python(std::move(a));
      },
      "path"_a, DOC(data_read_idx));
  m.def("load_mnist", &data::load_mnist, "dir"_a, "split"_a = "train", nb::call_guard<nb::gil_scoped_release>(),
        DOC(data_load_mnist));
  m.def("load_fashion_mnist", &data::load_fashion_mnist, "dir"_a, "split"_a = "train",
        nb::call_guard<nb::gil_scoped_release>(), DOC(data_load_fashion_mnist));
  m.def("load_cifar10", &data::load_cifar10, "dir"_a, "split"_a = "train", nb::call_guard<nb::gil_scoped_release>(),
        DOC(data_load_cifar10));
  m.def("load_cifar100", &data::load_cifar100, "dir"_a, "split"_a = "train", "labels"_a = "fine",
        nb::call_guard<nb::gil_scoped_release>(), DOC(data_load_cifar100));
  m.def("load_arrays", &data::load_arrays, "path"_a, "x_key"_a = "x", "y_key"_a = "y",
        nb::call_guard<nb::gil_scoped_release>(), DOC(data_load_arrays));
}

void bind_transforms(nb::module_& m) {
  m.def(
      "permutation",
      [](std::int64_t n, std::uint64_t seed) {
        std::vector<std::int64_t> p = data::permutation(n, seed);
        return writable_array_to_python(symx::Array::from_vector(p, {n}));
      },
      "n"_a, "seed"_a = 0, DOC(data_permutation));
  m.def(
      "take",
      [](const data::Dataset& d, nb::handle indices) {
        symx::Array idx = array_from_python(indices);
        if (idx.ndim() != 1 || !(symx::is_integer(idx.dtype()) || idx.size() == 0))
          throw symx::ValueError("symx.data.take: indices must be a 1-D array of integers, got " + shape_text(idx) +
                                 ".");
        std::vector<std::int64_t> v;
        for (std::int64_t i = 0; i < idx.size(); ++i) v.push_back(static_cast<std::int64_t>(idx.get_flat(i)));
        nb::gil_scoped_release released;
        return data::take(d, v);
      },
      "data"_a, "indices"_a, DOC(data_take));
  m.def(
      "train_test_split",
      [](const data::Dataset& d, nb::handle test_size, std::uint64_t seed, bool stratify) {
        std::int64_t count;
        if (nb::isinstance<nb::float_>(test_size)) {
          const double f = nb::cast<double>(test_size);
          if (!(f > 0 && f < 1))
            throw symx::ValueError(
                "symx.data.train_test_split: a float test_size is a fraction and must lie in (0, 1); got " +
                std::to_string(f) + ". Pass a fraction, or an int count of examples.");
          count = static_cast<std::int64_t>(std::ceil(f * static_cast<double>(d.size())));
        } else {
          count = nb::cast<std::int64_t>(test_size);
        }
        nb::gil_scoped_release released;
        return data::train_test_split(d, count, seed, stratify);
      },
      "data"_a, "test_size"_a, "seed"_a = 0, "stratify"_a = false, DOC(data_train_test_split));
  m.def(
      "channel_stats",
      [](nb::handle x) {
        symx::Array a = array_from_python(x);
        std::pair<symx::Array, symx::Array> p;
        {
          nb::gil_scoped_release released;
          p = data::channel_stats(a);
        }
        return stats_pair(std::move(p));
      },
      "x"_a, DOC(data_channel_stats));
  m.def(
      "standardize",
      [](nb::handle x, nb::handle mean, nb::handle std) {
        symx::Array a = array_from_python(x), m = array_from_python(mean), s = array_from_python(std), out;
        {
          nb::gil_scoped_release released;
          out = data::standardize(a, m, s);
        }
        return writable_array_to_python(std::move(out));
      },
      "x"_a, "mean"_a, "std"_a, DOC(data_standardize));
  m.def(
      "one_hot",
      [](nb::handle labels, std::int64_t classes, symx::DType dtype) {
        return writable_array_to_python(data::one_hot(array_from_python(labels), classes, dtype));
      },
      "labels"_a, "classes"_a, "dtype"_a = symx::DType::f32, DOC(data_one_hot));

  nb::class_<PyTransform>(m, "Transform", DOC(data_Transform))
      .def(
          "__call__",
          [](const PyTransform& self, nb::args arrays, std::uint64_t seed) {
            std::vector<symx::Array> in;
            for (nb::handle a : arrays) in.push_back(array_from_python(a));
            std::vector<symx::Array> out;
            {
              nb::gil_scoped_release released;
              out = self.fn(std::move(in), seed);
            }
            nb::list result;
            for (symx::Array& a : out) result.append(batch_array(std::move(a)));
            return nb::tuple(result);
          },
          "arrays"_a, "seed"_a = 0)
      .def("__repr__", [](const PyTransform& self) { return "symx.data." + self.repr; });
  m.def(
      "divide_by_max",
      [](std::size_t index) {
        return PyTransform{data::divide_by_max(index), "divide_by_max(index=" + std::to_string(index) + ")"};
      },
      "index"_a = 0, DOC(data_divide_by_max));
  m.def(
      "to_float32",
      [](double scale, std::size_t index) {
        return PyTransform{data::to_float32(scale, index),
                           "to_float32(scale=" + nb::cast<std::string>(nb::repr(nb::float_(scale))) +
                               ", index=" + std::to_string(index) + ")"};
      },
      "scale"_a = 1.0, "index"_a = 0, DOC(data_to_float32));
  m.def(
      "standardize_channels",
      [](nb::handle mean, nb::handle std, std::size_t index) {
        // Copies: the transform outlives the call and runs without the GIL.
        symx::Array m = array_from_python(mean).copy(), s = array_from_python(std).copy();
        return PyTransform{data::standardize_channels(m, s, index),
                           "standardize_channels(index=" + std::to_string(index) + ")"};
      },
      "mean"_a, "std"_a, "index"_a = 0, DOC(data_standardize_channels));
}

void bind_iterator(nb::module_& m) {
  nb::class_<data::IteratorState>(m, "IteratorState", DOC(data_IteratorState))
      .def(
          "__init__",
          [](data::IteratorState* self, std::uint64_t seed, std::int64_t epoch, std::int64_t batch) {
            new (self) data::IteratorState{seed, epoch, batch};
          },
          "seed"_a = 0, "epoch"_a = 0, "batch"_a = 0, DOC(data_IteratorState_init))
      .def_rw("seed", &data::IteratorState::seed)
      .def_rw("epoch", &data::IteratorState::epoch)
      .def_rw("batch", &data::IteratorState::batch)
      .def("__eq__",
           [](const data::IteratorState& a, nb::handle b) {
             return nb::isinstance<data::IteratorState>(b) && a == nb::cast<const data::IteratorState&>(b);
           })
      .def("__getstate__", [](const data::IteratorState& s) { return nb::make_tuple(s.seed, s.epoch, s.batch); })
      .def("__setstate__",
           [](data::IteratorState& s, std::tuple<std::uint64_t, std::int64_t, std::int64_t> t) {
             new (&s) data::IteratorState{std::get<0>(t), std::get<1>(t), std::get<2>(t)};
           })
      .def("__repr__", [](const data::IteratorState& s) {
        return "symx.data.IteratorState(seed=" + std::to_string(s.seed) + ", epoch=" + std::to_string(s.epoch) +
               ", batch=" + std::to_string(s.batch) + ")";
      });

  nb::class_<PyEpoch>(m, "_Epoch")
      .def("__iter__", [](nb::handle self) { return nb::borrow<nb::object>(self); })
      .def("__next__", [](PyEpoch& self) {
        if (self.done) throw nb::stop_iteration();
        nb::object batch = nb::cast<PyBatchIterator&>(self.owner).next();
        if (batch.is_none()) {
          self.done = true;
          throw nb::stop_iteration();
        }
        return batch;
      });

  nb::class_<PyBatchIterator>(m, "BatchIterator", DOC(data_BatchIterator))
      .def(
          "__init__",
          [](PyBatchIterator* self, nb::handle arrays, std::int64_t batch_size, bool shuffle, std::uint64_t seed,
             bool drop_last, std::int64_t prefetch, nb::handle transforms, std::int64_t shard, std::int64_t shards) {
            data::BatchOptions o{.batch_size = batch_size,
                                 .shuffle = shuffle,
                                 .seed = seed,
                                 .drop_last = drop_last,
                                 .prefetch = prefetch};
            o.shard = shard;
            o.shards = shards;
            std::vector<nb::object> keep;
            o.transforms = transforms_from_python(transforms, keep, "symx.data.BatchIterator");
            new (self) PyBatchIterator(arrays_argument(arrays), std::move(o), std::move(keep));
          },
          "arrays"_a, "batch_size"_a = 32, "shuffle"_a = true, "seed"_a = 0, "drop_last"_a = false, "prefetch"_a = 2,
          "transforms"_a = nb::none(), "shard"_a = 0, "shards"_a = 1, DOC(data_BatchIterator_init))
      .def(
          "__iter__", [](nb::handle self) { return PyEpoch{nb::borrow<nb::object>(self)}; },
          nb::sig("def __iter__(self) -> collections.abc.Iterator[tuple[numpy.ndarray, ...]]"),
          DOC(data_BatchIterator_iter))
      .def(
          "__len__", [](const PyBatchIterator& s) { return s.it->batches_per_epoch(); }, DOC(data_BatchIterator_len))
      .def("next", &PyBatchIterator::next, DOC(data_BatchIterator_next))
      .def(
          "batches_per_epoch", [](const PyBatchIterator& s) { return s.it->batches_per_epoch(); },
          DOC(data_BatchIterator_batches_per_epoch))
      .def_prop_ro(
          "size", [](const PyBatchIterator& s) { return s.it->size(); }, DOC(data_BatchIterator_size))
      .def(
          "state",
          [](PyBatchIterator& s) {
            nb::gil_scoped_release released;
            std::lock_guard lock(s.use);
            return s.it->state();
          },
          DOC(data_BatchIterator_state))
      .def(
          "restore",
          [](PyBatchIterator& s, const data::IteratorState& state) {
            nb::gil_scoped_release released;
            std::lock_guard lock(s.use);
            s.it->restore(state);
          },
          "state"_a, DOC(data_BatchIterator_restore))
      .def(
          "wait_seconds", [](PyBatchIterator& s) { return s.it->wait_seconds(); }, DOC(data_BatchIterator_wait_seconds))
      .def("__repr__", [](const PyBatchIterator& s) {
        const data::BatchOptions& o = s.it->options();
        return "symx.data.BatchIterator(size=" + std::to_string(s.it->size()) +
               ", batch_size=" + std::to_string(o.batch_size) + ", shuffle=" + (o.shuffle ? "True" : "False") +
               ", seed=" + std::to_string(o.seed) + ", drop_last=" + (o.drop_last ? "True" : "False") +
               ", prefetch=" + std::to_string(o.prefetch) + ", transforms=" + std::to_string(o.transforms.size()) + ")";
      });

  nb::module_::import_("atexit").attr("register")(nb::cpp_function(&stop_all_iterators));
}

// symx.data.download: the data set downloads of symx/data/download.hpp.
void bind_download(nb::module_& m) {
  // The transfer runs without the GIL so that other Python threads go on. The progress callback
  // (file, done, total) takes the GIL, checks for Ctrl-C (KeyboardInterrupt stops the download and
  // leaves the part file for a later resume) and calls the Python callback, if any; an exception
  // it raises stops the download and reaches the caller.
  m.def(
      "download",
      [](const std::string& name, const std::optional<std::filesystem::path>& dir,
         const std::optional<std::string>& mirror, const std::optional<std::filesystem::path>& ca_file,
         const std::optional<std::filesystem::path>& checksums, const std::optional<nb::callable>& callback,
         double connect_timeout, double stall_timeout, int retries, bool quiet, std::optional<double> timeout) {
        symx::data::DownloadOptions options;
        options.mirror = mirror.value_or("");
        options.ca_file = ca_file ? ca_file->string() : "";
        options.checksums = checksums ? checksums->string() : "";
        options.connect_timeout = connect_timeout;
        options.stall_timeout = stall_timeout;
        options.retries = retries;
        options.quiet = quiet;
        options.timeout = timeout.value_or(0);
        if (timeout && !(*timeout > 0))
          throw symx::ValueError("symx.data.download: timeout=" + std::to_string(*timeout) +
                                 " is not a positive number of seconds; pass None for the default of the file's size.");
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
      "retries"_a = 3, "quiet"_a = false, "timeout"_a = nb::none(), DOC(data_download));
}

}  // namespace

void bind_data(nb::module_& m) {
  bind_dataset(m);
  bind_readers(m);
  bind_transforms(m);
  bind_iterator(m);
  bind_download(m);
}
