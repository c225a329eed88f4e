// symx.train: the training loop (fit, evaluate), EarlyStopping, checkpoints and the tool's models.
// The loop runs in C++ without the GIL; Python is called only to build the graph (a callable
// network or loss) and for the callbacks' hooks, each under the GIL.
#include <nanobind/stl/map.h>
#include <nanobind/stl/shared_ptr.h>

#include <cmath>
#include <set>

#include "binding_common.hpp"
#include "binding_data.hpp"
#include "symx/cli.hpp"
#include "symx/train.hpp"

namespace tr = symx::train;
namespace ly = symx::nn::layers;

namespace {

nb::object number_or_none(double v) { return std::isfinite(v) ? nb::object(nb::float_(v)) : nb::none(); }

nb::dict metrics_dict(const tr::EpochMetrics& m) {
  nb::dict d;
  d["epoch"] = m.epoch;
  d["train_loss"] = number_or_none(m.train_loss);
  d["train_accuracy"] = number_or_none(m.train_accuracy);
  d["val_loss"] = number_or_none(m.val_loss);
  d["val_accuracy"] = number_or_none(m.val_accuracy);
  d["seconds"] = number_or_none(m.seconds);
  d["step_seconds"] = number_or_none(m.step_seconds);
  d["items_per_second"] = number_or_none(m.items_per_second);
  d["lr"] = number_or_none(m.lr);
  return d;
}

nb::list history_list(const tr::History& h) {
  nb::list out;
  for (const auto& m : h) out.append(metrics_dict(m));
  return out;
}

tr::History history_from_python(nb::handle list) {
  tr::History h;
  auto get = [](nb::handle d, const char* key) {
    nb::object v = d.attr("get")(key);
    return v.is_none() ? NAN : nb::cast<double>(v);
  };
  for (nb::handle d : list) {
    tr::EpochMetrics m;
    m.epoch = nb::cast<std::int64_t>(d.attr("get")("epoch", 0));
    m.train_loss = get(d, "train_loss"), m.train_accuracy = get(d, "train_accuracy");
    m.val_loss = get(d, "val_loss"), m.val_accuracy = get(d, "val_accuracy");
    m.seconds = get(d, "seconds"), m.step_seconds = get(d, "step_seconds");
    m.items_per_second = get(d, "items_per_second"), m.lr = get(d, "lr");
    h.push_back(m);
  }
  return h;
}

nb::dict checkpoint_dict(const tr::CheckpointInfo& c) {
  nb::dict d;
  d["path"] = c.path;
  d["epoch"] = c.epoch;
  d["batch"] = c.batch;
  d["step"] = c.step;
  d["seed"] = c.seed;
  d["history"] = history_list(c.history);
  d["config"] = c.config;
  return d;
}

// (x, y), a Dataset-like object with .x and .y, or None (an empty Dataset).
symx::data::Dataset dataset_from_python(nb::handle h, const char* what) {
  if (h.is_none()) return {};
  if (nb::isinstance<symx::data::Dataset>(h)) return nb::cast<const symx::data::Dataset&>(h);  // symx.data.Dataset
  if (nb::hasattr(h, "x") && nb::hasattr(h, "y"))
    return {symx_binding::array_from_python(h.attr("x")), symx_binding::array_from_python(h.attr("y"))};
  if ((nb::isinstance<nb::tuple>(h) || nb::isinstance<nb::list>(h)) && nb::len(h) == 2)
    return {symx_binding::array_from_python(h[0]), symx_binding::array_from_python(h[1])};
  throw nb::type_error((std::string("fit: ") + what +
                        " must be a pair (x, y) of arrays or a Dataset (an object with .x and .y), not " +
                        nb::cast<std::string>(nb::str(h.type())))
                           .c_str());
}

tr::Network network_from_python(nb::handle network) {
  if (nb::isinstance<ly::Layer>(network)) {
    ly::Layer* layer = nb::cast<ly::Layer*>(network);
    return [layer](const symx::Tensor& x, bool training) { return (*layer)(x, training); };
  }
  if (!PyCallable_Check(network.ptr()))
    throw nb::type_error("fit: network must be a Layer or a callable (x, training) -> logits.");
  return [f = symx_binding::PyRef(network)](const symx::Tensor& x, bool training) {
    nb::gil_scoped_acquire gil;
    symx_binding::PyLocation where;
    return nb::cast<symx::Tensor>(f.get()(x, training));
  };
}

tr::Loss loss_from_python(nb::handle loss) {
  if (loss.is_none()) return tr::softmax_cross_entropy;
  return [f = symx_binding::PyRef(loss)](const symx::Tensor& logits, const symx::Tensor& labels) {
    nb::gil_scoped_acquire gil;
    symx_binding::PyLocation where;
    return nb::cast<symx::Tensor>(f.get()(logits, labels));
  };
}

// A Python object with any of on_train_begin(), on_epoch_end(epoch, metrics) (a true result stops
// training), on_batch_end(progress) and on_train_end(history).
class PyCallback : public tr::Callback {
 public:
  explicit PyCallback(nb::handle obj) : obj_(nb::borrow(obj)) {
    for (const char* name : {"on_train_begin", "on_epoch_end", "on_batch_end", "on_train_end"})
      if (nb::hasattr(obj, name)) hooks_.insert(name);
  }
  void on_train_begin(const tr::Progress&) override {
    if (!hooks_.count("on_train_begin")) return;
    nb::gil_scoped_acquire gil;
    obj_.attr("on_train_begin")();
  }
  void on_batch_end(const tr::Progress& p) override {
    if (!hooks_.count("on_batch_end")) return;
    nb::gil_scoped_acquire gil;
    nb::dict d;
    d["epoch"] = p.epoch, d["batch"] = p.batch, d["batches"] = p.batches, d["step"] = p.step;
    d["loss"] = p.running_loss, d["accuracy"] = number_or_none(p.running_accuracy);
    obj_.attr("on_batch_end")(d);
  }
  void on_epoch_end(const tr::EpochMetrics& m, bool& stop) override {
    if (!hooks_.count("on_epoch_end")) return;
    nb::gil_scoped_acquire gil;
    if (nb::bool_(obj_.attr("on_epoch_end")(m.epoch, metrics_dict(m)))) stop = true;
  }
  void on_train_end(const tr::History& h) override {
    if (!hooks_.count("on_train_end")) return;
    nb::gil_scoped_acquire gil;
    obj_.attr("on_train_end")(history_list(h));
  }

 private:
  nb::object obj_;
  std::set<std::string> hooks_;
};

}  // namespace

void bind_train(nb::module_& m) {
  nb::class_<tr::Callback>(m, "Callback", DOC(train_Callback));
  nb::class_<tr::EarlyStopping, tr::Callback>(m, "EarlyStopping", DOC(train_EarlyStopping))
      .def(nb::init<std::string, std::int64_t, double, std::string>(), "monitor"_a = "val_loss", "patience"_a = 5,
           "min_delta"_a = 0.0, "mode"_a = "auto")
      .def_prop_ro("best_epoch", &tr::EarlyStopping::best_epoch)
      .def_prop_ro("stopped_epoch", &tr::EarlyStopping::stopped_epoch);

  m.def(
      "fit",
      [](nb::handle network, nb::handle loss, nb::handle optimizer, nb::handle train, nb::handle validation,
         std::int64_t epochs, std::int64_t batch_size, std::uint64_t seed, std::optional<std::string> out_dir,
         bool resume, std::string log, std::int64_t prefetch, bool drop_last, nb::handle transforms,
         nb::handle callbacks, std::map<std::string, std::string> config, double bucket_mb) {
        tr::Network net = network_from_python(network);
        tr::Loss loss_fn = loss_from_python(loss);
        std::unique_ptr<symx::optim::Optimizer> default_optimizer;
        symx::optim::Optimizer* opt = nullptr;
        if (optimizer.is_none()) {
          default_optimizer = std::make_unique<symx::optim::Adam>(1e-3);
          opt = default_optimizer.get();
        } else {
          opt = nb::cast<symx::optim::Optimizer*>(optimizer);
        }
        // `train` has a default only so that the signature stays valid Python after the optional
        // loss and optimizer (the stubs); it is required.
        if (train.is_none())
          throw nb::type_error(
              "fit: missing the training data: pass train=(x, y) or a Dataset, as in "
              "sx.train.fit(net, train=(x, y), epochs=5)");
        symx::data::Dataset train_data = dataset_from_python(train, "train");
        symx::data::Dataset val_data = dataset_from_python(validation, "validation");
        std::vector<std::shared_ptr<tr::Callback>> hooks;
        if (!callbacks.is_none())
          for (nb::handle c : callbacks) {
            if (nb::isinstance<tr::Callback>(c)) {
              nb::object keep = nb::borrow(c);  // the Python object owns the C++ callback
              tr::Callback* raw = nb::cast<tr::Callback*>(c);
              hooks.push_back(std::shared_ptr<tr::Callback>(raw, [keep](tr::Callback*) mutable {
                nb::gil_scoped_acquire gil;
                keep.reset();
              }));
            } else {
              hooks.push_back(std::make_shared<PyCallback>(c));
            }
          }
        tr::FitOptions options{.epochs = epochs,
                               .batch_size = batch_size,
                               .seed = seed,
                               .out_dir = out_dir.value_or(""),
                               .resume = resume,
                               .log = log,
                               .prefetch = prefetch,
                               .drop_last = drop_last};
        options.bucket_mb = bucket_mb;
        options.config = std::move(config);
        std::vector<nb::object> keep_transforms;  // Python callables among the transforms, alive during fit
        options.transforms = transforms_from_python(transforms, keep_transforms, "symx.train.fit");
        tr::History history;
        try {
          nb::gil_scoped_release release;
          history = tr::fit(net, loss_fn, *opt, train_data, val_data, options, hooks);
        } catch (const tr::Interrupted& e) {
          PyErr_SetString(PyExc_KeyboardInterrupt, e.what());
          throw nb::python_error();
        }
        return history_list(history);
      },
      "network"_a, "loss"_a = nb::none(), "optimizer"_a = nb::none(), "train"_a = nb::none(),
      "validation"_a = nb::none(), "epochs"_a = 1, "batch_size"_a = 32, "seed"_a = 0, "out_dir"_a = nb::none(),
      "resume"_a = false, "log"_a = "auto", "prefetch"_a = 2, "drop_last"_a = false, "transforms"_a = nb::none(),
      "callbacks"_a = nb::none(), "config"_a = std::map<std::string, std::string>{}, "bucket_mb"_a = 25.0,
      DOC(train_fit));

  m.def(
      "evaluate",
      [](nb::handle network, nb::handle data, nb::handle loss, std::int64_t batch_size) {
        tr::Network net = network_from_python(network);
        tr::Loss loss_fn = loss_from_python(loss);
        symx::data::Dataset d = dataset_from_python(data, "data");
        tr::Evaluation e;
        {
          nb::gil_scoped_release release;
          e = tr::evaluate(net, loss_fn, d, batch_size);
        }
        nb::dict out;
        out["loss"] = e.loss;
        out["accuracy"] = number_or_none(e.accuracy);
        out["examples"] = e.examples;
        return out;
      },
      "network"_a, "data"_a, "loss"_a = nb::none(), "batch_size"_a = 32, DOC(train_evaluate));

  m.def("softmax_cross_entropy", &tr::softmax_cross_entropy, "logits"_a, "labels"_a, DOC(train_softmax_cross_entropy));
  m.def(
      "read_checkpoint", [](const std::string& run_dir) { return checkpoint_dict(tr::read_checkpoint(run_dir)); },
      "run_dir"_a, DOC(train_read_checkpoint));
  m.def(
      "load_checkpoint",
      [](const std::string& run_dir, std::vector<symx::Tensor> variables) {
        return checkpoint_dict(tr::load_checkpoint(run_dir, variables));
      },
      "run_dir"_a, "variables"_a = std::vector<symx::Tensor>{}, DOC(train_load_checkpoint));
  m.def(
      "plot_history",
      [](nb::handle history, const std::string& path, const std::string& title) {
        tr::plot_history(history_from_python(history), path, title);
      },
      "history"_a, "path"_a, "title"_a = "training curves", DOC(train_plot_history));

  m.def("model_names", &tr::models::model_names, DOC(train_models_model_names));
  m.def(
      "make_model",
      [](const std::string& name, std::vector<std::int64_t> image_shape, std::int64_t classes,
         std::int64_t steps_per_epoch, bool sync_batch_norm) {
        tr::models::Model model = tr::models::make_model(name, symx::Shape(image_shape.begin(), image_shape.end()),
                                                         classes, steps_per_epoch, sync_batch_norm);
        return nb::make_tuple(model.network, model.optimizer, model.batch_size);
      },
      "name"_a, "image_shape"_a, "classes"_a = 10, "steps_per_epoch"_a = 1, "sync_batch_norm"_a = false,
      DOC(train_models_make_model));
  m.def(
      "paper_cnn",
      [](std::vector<std::int64_t> image_shape, std::int64_t classes, bool sync_batch_norm) {
        return tr::models::paper_cnn(symx::Shape(image_shape.begin(), image_shape.end()), classes, sync_batch_norm);
      },
      "image_shape"_a, "classes"_a = 10, "sync_batch_norm"_a = false, DOC(train_models_paper_cnn));
  m.def("mlp", &tr::models::mlp, "classes"_a = 10, DOC(train_models_mlp));
  m.def(
      "sequence_classifier",
      [](const std::string& cell, std::vector<std::int64_t> image_shape, std::int64_t classes, std::int64_t hidden) {
        return tr::models::sequence_classifier(cell, symx::Shape(image_shape.begin(), image_shape.end()), classes,
                                               hidden);
      },
      "cell"_a, "image_shape"_a, "classes"_a = 10, "hidden"_a = 128, DOC(train_models_sequence_classifier));
  m.def("scale_by_max", &tr::models::scale_by_max, "x"_a, DOC(train_models_scale_by_max));
}

// `python -m symx`: the same commands as build/bin/symx, run by the C++ tool (symx/cli.hpp).
void bind_cli(nb::module_& m) {
  // Without the GIL, so that a long `train` leaves other Python threads running; the tool handles
  // SIGINT itself (a checkpoint, then exit status 130).
  m.def(
      "_cli_run",
      [](const std::vector<std::string>& args) {
        nb::gil_scoped_release release;
        return symx::cli::run(args);
      },
      "args"_a, DOC(cli_run));
}
