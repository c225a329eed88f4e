// Recurrent layers (symx/nn/layers.hpp): RNN, GRU and LSTM, one symx::scan per layer and direction.
//
// The step reads x_t @ weight_ih^T + bias_ih inside the scan body, as the equations are written;
// the core hoists that product out of the loop as one matrix product over every step (it depends
// on the step's slice and invariants only), so only h @ weight_hh^T stays in the loop.
#include <cmath>

#include "layers_util.hpp"

namespace symx::nn::layers {

namespace {

const char* layout(bool batch_first) { return batch_first ? "(N, T, F)" : "(T, N, F)"; }

std::string size_string(std::int64_t n) { return is_symbol(n) ? std::string("None") : std::to_string(n); }

}  // namespace

Recurrent::Recurrent(Cell cell, std::int64_t hidden_size, RecurrentOptions options, const char* kind, const char* name)
    : Layer(options.name.empty() ? name : options.name),
      cell_(cell),
      hidden_(hidden_size),
      options_(std::move(options)) {
  kind_ = kind;
  detail::check_positive(kind, "hidden_size", hidden_size);
  detail::check_positive(kind, "num_layers", options_.num_layers);
  if (!(options_.dropout >= 0 && options_.dropout < 1))
    throw ValueError(std::string("nn.layers.") + kind + ": dropout must be in [0, 1), got " +
                     std::to_string(options_.dropout) + ". It is the probability of dropping an element of a " +
                     "layer's output before the next layer.");
  // PyTorch's default: every weight and bias uniform in +-1/sqrt(hidden_size).
  const double bound = 1 / std::sqrt(static_cast<double>(hidden_size));
  if (!options_.w_init) options_.w_init = init::uniform(-bound, bound);
  if (!options_.b_init) options_.b_init = init::uniform(-bound, bound);
}

int Recurrent::gates() const {
  switch (cell_) {
    case Cell::gru: return 3;
    case Cell::lstm: return 4;
    default: return 1;
  }
}

void Recurrent::build(const Tensor& x, Loc loc) {
  check_rank(x, 3, layout(options_.batch_first));
  features_ = x.shape()[2];
  DType dtype = detail::param_dtype(x);
  const int directions = options_.bidirectional ? 2 : 1;
  const std::int64_t rows = gates() * hidden_;
  // PyTorch's names and order: per layer, per direction, weight_ih, weight_hh, bias_ih, bias_hh, so
  // that variables() lists them as torch's parameters() does.
  for (std::int64_t layer = 0; layer < options_.num_layers; ++layer) {
    for (int d = 0; d < directions; ++d) {
      std::string suffix = "_l" + std::to_string(layer) + (d ? "_reverse" : "");
      std::int64_t in = layer == 0 ? features_ : directions * hidden_;
      Weights w;
      w.w_ih = add_variable("weight_ih" + suffix, options_.w_init, {rows, in}, dtype, true, loc);
      w.w_hh = add_variable("weight_hh" + suffix, options_.w_init, {rows, hidden_}, dtype, true, loc);
      if (options_.use_bias) {
        w.b_ih = add_variable("bias_ih" + suffix, options_.b_init, {rows}, dtype, true, loc);
        w.b_hh = add_variable("bias_hh" + suffix, options_.b_init, {rows}, dtype, true, loc);
      }
      weights_.push_back(w);
    }
  }
}

Tensor Recurrent::forward(const Tensor& x, bool training, Loc loc) { return run(x, {}, training, loc).output; }

RecurrentOutputs Recurrent::call(const Tensor& x, const RecurrentInputs& inputs, bool training, Loc loc) {
  ensure_built(x, loc);
  return run(x, inputs, training, loc);
}

RecurrentOutputs Recurrent::run(const Tensor& x, const RecurrentInputs& inputs, bool training, Loc loc) {
  const bool batch_first = options_.batch_first;
  check_rank(x, 3, layout(batch_first));
  check_features(x, 2, features_, "features");
  const DType dtype = weights_[0].w_ih.dtype();
  const int directions = options_.bidirectional ? 2 : 1;
  const std::int64_t states = options_.num_layers * directions;
  // Time first inside: the scan slices its sequences along their first axis.
  Tensor seq = batch_first ? transpose(x, {1, 0, 2}, loc) : x;
  if (seq.dtype() != dtype) seq = cast(seq, dtype, loc);
  const std::int64_t batch = seq.shape()[1];

  auto check_state = [&](const Tensor& s, const char* name) {
    if (!s.defined()) return s;
    const Shape& shape = s.shape();
    bool ok = shape.size() == 3 && shape[0] == states && shape[2] == hidden_ &&
              (is_symbol(shape[1]) || is_symbol(batch) || shape[1] == batch);
    if (!ok)
      throw ShapeError(describe() + ": the initial state " + name + " '" + s.label() + "' has shape " +
                       shape_string(shape) + ", expected (layers * directions, N, hidden_size) = (" +
                       std::to_string(states) + ", " + size_string(batch) + ", " + std::to_string(hidden_) +
                       "), as PyTorch's. Pass one state per layer and direction, layer by layer (forward, then " +
                       "reverse), or none for zeros.");
    return s.dtype() == dtype ? s : cast(s, dtype, loc);
  };
  Tensor h0 = check_state(inputs.h0, "h0");
  Tensor c0 = check_state(inputs.c0, "c0");
  if (c0.defined() && cell_ != Cell::lstm)
    throw ValueError(describe() + ": c0 is given, but only an LSTM has a cell state. Pass h0 only.");

  // With lengths, mask[t, n] = t < lengths[n]: (T, N, 1), computed once outside the loops and
  // sliced by them. The step counter is a cumulative sum so that T may be unknown until a call.
  Tensor mask;
  if (inputs.lengths.defined()) {
    const Tensor& lengths = inputs.lengths;
    if (lengths.ndim() != 1 || !is_integer(lengths.dtype()) ||
        (!is_symbol(batch) && !is_symbol(lengths.shape()[0]) && lengths.shape()[0] != batch))
      throw ShapeError(describe() + ": lengths '" + lengths.label() + "' has shape " + shape_string(lengths.shape()) +
                       " and dtype " + std::string(dtype_name(lengths.dtype())) +
                       ", expected an integer tensor of shape (" + size_string(batch) +
                       ",): the number of valid steps of each sequence of the batch.");
    Tensor ones_tn = ones_like(cast(slice(seq, {Index::all(), Index::all(), 0}, loc), DType::i64, loc), loc);
    Tensor step = cumsum(ones_tn, 0, loc);  // t + 1
    mask = expand_dims(less_equal(step, expand_dims(cast(lengths, DType::i64, loc), 0, loc), loc), 2, loc);
  }

  const Cell cell = cell_;
  const bool lstm = cell == Cell::lstm;
  std::vector<Tensor> h_n, c_n;
  Tensor layer_in = seq;
  for (std::int64_t layer = 0; layer < options_.num_layers; ++layer) {
    if (layer > 0 && training && options_.dropout > 0) {
      // Dropout between layers, drawn for the whole sequence here: random draws inside a scan body
      // are refused, and PyTorch draws per element and step too.
      const double keep = 1 - options_.dropout;
      Tensor keep_mask = random::bernoulli(layer_in.shape(), keep, dtype, loc);
      layer_in = multiply(layer_in, multiply(keep_mask, 1 / keep, loc), loc);
    }
    std::vector<Tensor> outs;
    for (int d = 0; d < directions; ++d) {
      const std::int64_t index = layer * directions + d;
      const Weights w = weights_[static_cast<std::size_t>(index)];
      auto initial = [&](const Tensor& given) {
        return given.defined() ? slice(given, {index}, loc) : zeros({batch, hidden_}, dtype, loc);
      };
      std::vector<Tensor> init = {initial(h0)};
      if (lstm) init.push_back(initial(c0));
      std::vector<Tensor> sequences = {layer_in};
      if (mask.defined()) sequences.push_back(mask);
      const bool masked = mask.defined();
      const bool bias = options_.use_bias;
      auto body = [w, cell, masked, bias, loc](const std::vector<Tensor>& carry, const std::vector<Tensor>& xs,
                                               const std::vector<Tensor>&) {
        const Tensor& h = carry[0];
        // x_t @ weight_ih^T + bias_ih: hoisted out of the loop by the core (one product for all steps).
        Tensor gi = matmul(xs[0], transpose(w.w_ih, {}, loc), loc);
        Tensor gh = matmul(h, transpose(w.w_hh, {}, loc), loc);
        if (bias) {
          gi = add(gi, w.b_ih, loc);
          gh = add(gh, w.b_hh, loc);
        }
        Tensor h_new, c_new;
        switch (cell) {
          case Cell::tanh: h_new = tanh(add(gi, gh, loc), loc); break;
          case Cell::relu: h_new = relu(add(gi, gh, loc), loc); break;
          case Cell::gru: {
            // PyTorch's order r, z, n; the reset gate scales the hidden product including its bias.
            auto i = split(gi, 3, 1, loc), hh = split(gh, 3, 1, loc);
            Tensor r = symx::sigmoid(add(i[0], hh[0], loc), loc);
            Tensor z = symx::sigmoid(add(i[1], hh[1], loc), loc);
            Tensor n = tanh(add(i[2], multiply(r, hh[2], loc), loc), loc);
            h_new = add(n, multiply(z, subtract(h, n, loc), loc), loc);  // (1 - z) * n + z * h
            break;
          }
          case Cell::lstm: {
            // PyTorch's order i, f, g, o.
            auto g = split(add(gi, gh, loc), 4, 1, loc);
            c_new = add(multiply(symx::sigmoid(g[1], loc), carry[1], loc),
                        multiply(symx::sigmoid(g[0], loc), tanh(g[2], loc), loc), loc);
            h_new = multiply(symx::sigmoid(g[3], loc), tanh(c_new, loc), loc);
            break;
          }
        }
        Tensor y = h_new;
        if (masked) {  // past a sequence's end: the state stays, the output is zero
          const Tensor& m = xs[1];
          h_new = where(m, h_new, h, loc);
          if (c_new.defined()) c_new = where(m, c_new, carry[1], loc);
          y = where(m, y, zeros_like(y, loc), loc);
        }
        ScanResult r{{h_new}, {y}};
        if (c_new.defined()) r.carry.push_back(c_new);
        return r;
      };
      ScanOptions scan_options;
      scan_options.reverse = d == 1;
      ScanResult r = scan(body, init, sequences, {}, scan_options, loc);
      outs.push_back(r.ys[0]);
      h_n.push_back(r.carry[0]);
      if (lstm) c_n.push_back(r.carry[1]);
    }
    layer_in = directions == 1 ? outs[0] : concatenate(outs, 2, loc);
  }

  RecurrentOutputs out;
  out.h_n = stack(h_n, 0, loc);
  if (lstm) out.c_n = stack(c_n, 0, loc);
  if (options_.return_sequences) {
    out.output = batch_first ? transpose(layer_in, {1, 0, 2}, loc) : layer_in;
  } else {
    // The last step's output: the last layer's final state of each direction (with lengths, the
    // state at each sequence's last step; the reverse direction ends at step 0).
    std::vector<Tensor> last(h_n.end() - directions, h_n.end());
    out.output = directions == 1 ? last[0] : concatenate(last, 1, loc);
  }
  return out;
}

RNN::RNN(std::int64_t hidden_size, const std::string& nonlinearity, RecurrentOptions options)
    : Recurrent(nonlinearity == "relu" ? Cell::relu : Cell::tanh, hidden_size, std::move(options), "RNN", "rnn") {
  if (nonlinearity != "tanh" && nonlinearity != "relu")
    throw ValueError("nn.layers.RNN: nonlinearity '" + nonlinearity + "' is unknown. Use \"tanh\" or \"relu\".");
}

GRU::GRU(std::int64_t hidden_size, RecurrentOptions options)
    : Recurrent(Cell::gru, hidden_size, std::move(options), "GRU", "gru") {}

LSTM::LSTM(std::int64_t hidden_size, RecurrentOptions options)
    : Recurrent(Cell::lstm, hidden_size, std::move(options), "LSTM", "lstm") {}

}  // namespace symx::nn::layers
