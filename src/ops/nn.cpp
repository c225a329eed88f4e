// Neural-network ops: the convolution family (conv, its input and filter transposes), max and
// average pooling with their gradients, and the activation composites (relu, gelu, softmax, ...).
//
// Reference evaluation: plain nested loops in double precision (float32 results are rounded at
// the end). The conv family shares one loop that visits every (input, weight, output) triple
// of the convolution sum, so the three ops are the same sum read three ways.
#include <cctype>
#include <cmath>
#include <limits>
#include <numbers>

#include "ops/op_table.hpp"

namespace symx {
namespace ops {
namespace {

std::string num(std::int64_t v) { return std::to_string(v); }

void require_float_operands(const std::vector<Tensor>& in) {
  for (const auto& t : in)
    if (!is_floating(t.dtype()))
      fail_dtype("expects floating-point operands, got " + std::string(dtype_name(t.dtype())),
                 "Cast the operands with astype(float32).");
  for (const auto& t : in)
    check_internal(t.dtype() == in[0].dtype(), "nn op operands must be promoted before make_node");
}

// ---- convolution geometry ----

// The output shape of a convolution of an input of shape `x` with weights of shape `w`, after
// checking every attribute. Spatial axes are the trailing x.size() - 2.
Shape conv_output_shape(const Shape& x, const Shape& w, const ConvAttr& a) {
  if (x.size() < 3)
    fail_shape("the input must be (N, C, *spatial) with at least one spatial axis, got shape " + shape_string(x),
               "Add the batch and channel axes, e.g. reshape to (1, 1, ...).");
  std::size_t sd = x.size() - 2;
  if (w.size() != x.size())
    fail_shape("the weights must be (out_channels, in_channels/groups, *kernel) with " +
                   num(static_cast<std::int64_t>(sd)) + " kernel axes to match the input, got shape " + shape_string(w),
               "Give the weights as many dimensions as the input.");
  if (a.strides.size() != sd || a.pad_low.size() != sd || a.pad_high.size() != sd || a.dilation.size() != sd)
    fail_value("strides, padding and dilation need one entry per spatial axis (" + num(static_cast<std::int64_t>(sd)) +
                   ")",
               "Pass one value per spatial axis.");
  for (std::size_t i = 0; i < sd; ++i) {
    if (a.strides[i] < 1) fail_value("strides must be positive, got " + num(a.strides[i]), "Use strides >= 1.");
    if (a.dilation[i] < 1) fail_value("dilation must be positive, got " + num(a.dilation[i]), "Use dilation >= 1.");
    if (a.pad_low[i] < 0 || a.pad_high[i] < 0)
      fail_value("padding must be non-negative, got (" + num(a.pad_low[i]) + ", " + num(a.pad_high[i]) + ")",
                 "Crop the input with slicing instead of negative padding.");
  }
  if (a.groups < 1) fail_value("groups must be positive, got " + num(a.groups), "Use groups >= 1.");
  std::int64_t c = x[1], o = w[0];
  if (w[1] * a.groups != c)
    fail_shape(
        "input has " + num(c) + " channels but the weights expect " + num(w[1] * a.groups) +
            (a.groups > 1 ? " (= " + num(w[1]) + " per group × " + num(a.groups) + " groups)" : std::string()),
        c % a.groups != 0
            ? "groups (" + num(a.groups) + ") does not divide the " + num(c) +
                  " input channels: use a groups value that does."
            : "Make the weights' second axis the input channels divided by groups (the channel axis is axis 1, NCHW).");
  if (o % a.groups != 0)
    fail_shape("groups (" + num(a.groups) + ") must divide the output channels (" + num(o) +
                   ", the weights' first axis)",
               "Choose groups that divides the number of output channels.");
  Shape out{x[0], o};
  for (std::size_t i = 0; i < sd; ++i) {
    std::int64_t padded = x[i + 2] + a.pad_low[i] + a.pad_high[i];
    std::int64_t span = a.dilation[i] * (w[i + 2] - 1) + 1;
    if (w[i + 2] < 1)
      fail_shape("the kernel has size 0 on spatial axis " + num(static_cast<std::int64_t>(i)),
                 "Use a non-empty kernel.");
    if (span > padded)
      fail_shape("the kernel (size " + num(w[i + 2]) +
                     (a.dilation[i] > 1 ? ", " + num(span) + " with dilation" : std::string()) +
                     ") is larger than the padded input (size " + num(padded) + ") on spatial axis " +
                     num(static_cast<std::int64_t>(i)),
                 "Use a smaller kernel, more padding or \"SAME\" padding.");
    out.push_back((padded - span) / a.strides[i] + 1);
  }
  return out;
}

// Calls f(xi, wi, yi) with flat indices for every term x[xi] * w[wi] of the convolution sum
// y[yi] = sum x * w.
template <class F> void conv_terms(const Shape& xs, const Shape& ws, const Shape& ys, const ConvAttr& a, F f) {
  std::size_t sd = xs.size() - 2;
  auto xst = contiguous_strides(xs), wst = contiguous_strides(ws), yst = contiguous_strides(ys);
  std::int64_t cg = ws[1], og = ys[1] / a.groups;
  Shape kernel(ws.begin() + 2, ws.end()), spatial(ys.begin() + 2, ys.end());
  if (num_elements(ys) == 0 || num_elements(kernel) == 0 || cg == 0) return;
  for (std::int64_t n = 0; n < ys[0]; ++n)
    for (std::int64_t o = 0; o < ys[1]; ++o) {
      std::int64_t group = o / og;
      IndexCounter out_pos(spatial);
      do {
        std::int64_t yi = n * yst[0] + o * yst[1];
        for (std::size_t d = 0; d < sd; ++d) yi += out_pos.index[d] * yst[d + 2];
        for (std::int64_t c = 0; c < cg; ++c) {
          IndexCounter k(kernel);
          do {
            std::int64_t xi = n * xst[0] + (group * cg + c) * xst[1];
            std::int64_t wi = o * wst[0] + c * wst[1];
            bool inside = true;
            for (std::size_t d = 0; d < sd; ++d) {
              std::int64_t p = out_pos.index[d] * a.strides[d] - a.pad_low[d] + k.index[d] * a.dilation[d];
              if (p < 0 || p >= xs[d + 2]) {
                inside = false;
                break;
              }
              xi += p * xst[d + 2];
              wi += k.index[d] * wst[d + 2];
            }
            if (inside) f(xi, wi, yi);
          } while (k.next());
        }
      } while (out_pos.next());
    }
}

const ConvAttr& conv_attr(const Attr& attr) { return std::get<ConvAttr>(attr); }

void check_recorded(const Shape& recorded, const Shape& actual, const char* what) {
  if (!recorded.empty() && recorded != actual)
    fail_shape(std::string("the ") + what + " shape " + shape_string(actual) + " differs from the recorded " +
                   shape_string(recorded),
               "Build conv gradients with the public functions.");
}

// conv(x, w): (N, C, *in) x (O, C/groups, *k) -> (N, O, *out).
TensorType infer_conv(const std::vector<Tensor>& in, const Attr& attr) {
  require_float_operands(in);
  return {conv_output_shape(in[0].shape(), in[1].shape(), conv_attr(attr)), in[0].dtype()};
}

// conv_backward_input(g, w): g of the conv output's shape -> the input's shape (attr.input_shape).
TensorType infer_conv_backward_input(const std::vector<Tensor>& in, const Attr& attr) {
  require_float_operands(in);
  const ConvAttr& a = conv_attr(attr);
  check_recorded(a.filter_shape, in[1].shape(), "weights");
  Shape y = conv_output_shape(a.input_shape, in[1].shape(), a);
  if (y != in[0].shape())
    fail_shape("the cotangent has shape " + shape_string(in[0].shape()) + " but a convolution of an input of shape " +
                   shape_string(a.input_shape) + " gives " + shape_string(y),
               "Pass a cotangent of the convolution output's shape (for conv2d_transpose, check output_padding).");
  return {a.input_shape, in[0].dtype()};
}

// conv_backward_filter(x, g): -> the weights' shape (attr.filter_shape).
TensorType infer_conv_backward_filter(const std::vector<Tensor>& in, const Attr& attr) {
  require_float_operands(in);
  const ConvAttr& a = conv_attr(attr);
  check_recorded(a.input_shape, in[0].shape(), "input");
  Shape y = conv_output_shape(in[0].shape(), a.filter_shape, a);
  if (y != in[1].shape())
    fail_shape("the cotangent has shape " + shape_string(in[1].shape()) + " but the convolution output is " +
                   shape_string(y),
               "Pass a cotangent of the convolution output's shape.");
  return {a.filter_shape, in[0].dtype()};
}

Array to_array(const std::vector<double>& v, const TensorType& type) {
  return Array::from_vector(v, type.shape).astype(type.dtype);
}

Array eval_conv(const EvalArgs& args) {
  const Array& x = args.inputs[0];
  const Array& w = args.inputs[1];
  auto xv = x.to_vector(), wv = w.to_vector();
  std::vector<double> y(static_cast<std::size_t>(num_elements(args.node.type.shape)), 0.0);
  conv_terms(x.shape(), w.shape(), args.node.type.shape, conv_attr(args.node.attr),
             [&](std::int64_t xi, std::int64_t wi, std::int64_t yi) {
               y[static_cast<std::size_t>(yi)] += xv[static_cast<std::size_t>(xi)] * wv[static_cast<std::size_t>(wi)];
             });
  return to_array(y, args.node.type);
}

Array eval_conv_backward_input(const EvalArgs& args) {
  const Array& g = args.inputs[0];
  const Array& w = args.inputs[1];
  auto gv = g.to_vector(), wv = w.to_vector();
  std::vector<double> x(static_cast<std::size_t>(num_elements(args.node.type.shape)), 0.0);
  conv_terms(args.node.type.shape, w.shape(), g.shape(), conv_attr(args.node.attr),
             [&](std::int64_t xi, std::int64_t wi, std::int64_t yi) {
               x[static_cast<std::size_t>(xi)] += gv[static_cast<std::size_t>(yi)] * wv[static_cast<std::size_t>(wi)];
             });
  return to_array(x, args.node.type);
}

Array eval_conv_backward_filter(const EvalArgs& args) {
  const Array& x = args.inputs[0];
  const Array& g = args.inputs[1];
  auto xv = x.to_vector(), gv = g.to_vector();
  std::vector<double> w(static_cast<std::size_t>(num_elements(args.node.type.shape)), 0.0);
  conv_terms(x.shape(), args.node.type.shape, g.shape(), conv_attr(args.node.attr),
             [&](std::int64_t xi, std::int64_t wi, std::int64_t yi) {
               w[static_cast<std::size_t>(wi)] += xv[static_cast<std::size_t>(xi)] * gv[static_cast<std::size_t>(yi)];
             });
  return to_array(w, args.node.type);
}

ConvAttr with_shapes(ConvAttr a, const Shape& input, const Shape& filter) {
  a.input_shape = input;
  a.filter_shape = filter;
  return a;
}

Tensor conv_node(const Tensor& x, const Tensor& w, const ConvAttr& a) {
  return make_node(OpKind::Conv, {x, w}, with_shapes(a, x.shape(), w.shape()));
}
Tensor conv_bi_node(const Tensor& g, const Tensor& w, const ConvAttr& a) {
  return make_node(OpKind::ConvBackwardInput, {g, w}, with_shapes(a, a.input_shape, w.shape()));
}
Tensor conv_bf_node(const Tensor& x, const Tensor& g, const ConvAttr& a) {
  return make_node(OpKind::ConvBackwardFilter, {x, g}, with_shapes(a, x.shape(), a.filter_shape));
}

// y = conv(x, w) is bilinear; with <., .> the elementwise inner product:
//   <x', bi(g, w)> = <conv(x', w), g>   and   <w', bf(x, g)> = <conv(x, w'), g>.
std::vector<Tensor> vjp_conv(const Tensor& y, const Tensor& g) {
  const Tensor& x = y.node().inputs[0];
  const Tensor& w = y.node().inputs[1];
  ConvAttr a = with_shapes(conv_attr(y.node().attr), x.shape(), w.shape());
  return {conv_bi_node(g, w, a), conv_bf_node(x, g, a)};
}

// z = bi(gy, w): <gz, z> = <conv(gz, w), gy>, so d/dgy = conv(gz, w) and d/dw = bf(gz, gy).
std::vector<Tensor> vjp_conv_backward_input(const Tensor& z, const Tensor& gz) {
  const Tensor& gy = z.node().inputs[0];
  const Tensor& w = z.node().inputs[1];
  ConvAttr a = with_shapes(conv_attr(z.node().attr), z.shape(), w.shape());
  return {conv_node(gz, w, a), conv_bf_node(gz, gy, a)};
}

// u = bf(x, gy): <gu, u> = <conv(x, gu), gy>, so d/dx = bi(gy, gu) and d/dgy = conv(x, gu).
std::vector<Tensor> vjp_conv_backward_filter(const Tensor& u, const Tensor& gu) {
  const Tensor& x = u.node().inputs[0];
  const Tensor& gy = u.node().inputs[1];
  ConvAttr a = with_shapes(conv_attr(u.node().attr), x.shape(), u.shape());
  return {conv_bi_node(gy, gu, a), conv_node(x, gu, a)};
}

// ---- pooling over the last two axes ----

const PoolAttr& pool_attr(const Attr& attr) { return std::get<PoolAttr>(attr); }

Shape pool_output_shape(const Shape& x, const PoolAttr& a) {
  if (x.size() < 2)
    fail_shape("pooling needs at least 2 dimensions (..., H, W), got shape " + shape_string(x),
               "Pass an (N, C, H, W) input.");
  if (a.window.size() != 2 || a.strides.size() != 2 || a.pad_low.size() != 2 || a.pad_high.size() != 2)
    fail_value("window, strides and padding need 2 entries each (H and W)", "Pass two values for each.");
  Shape out(x.begin(), x.end() - 2);
  for (std::size_t i = 0; i < 2; ++i) {
    std::int64_t k = a.window[i], s = a.strides[i], lo = a.pad_low[i], hi = a.pad_high[i];
    std::int64_t in = x[x.size() - 2 + i];
    if (k < 1) fail_value("the window must be positive, got " + num(k), "Use a window of at least 1.");
    if (s < 1) fail_value("strides must be positive, got " + num(s), "Use strides >= 1.");
    if (lo < 0 || hi < 0 || lo >= k || hi >= k)
      fail_value("padding (" + num(lo) + ", " + num(hi) + ") on spatial axis " + num(static_cast<std::int64_t>(i)) +
                     " must be non-negative and smaller than the window (" + num(k) + ")",
                 "Use less padding, so that every window covers at least one input cell.");
    if (k > in + lo + hi)
      fail_shape("the window (size " + num(k) + ") is larger than the padded input (size " + num(in + lo + hi) +
                     ") on spatial axis " + num(static_cast<std::int64_t>(i)),
                 "Use a smaller window or \"SAME\" padding.");
    out.push_back((in + lo + hi - k) / s + 1);
  }
  return out;
}

// Calls f(out_flat, in_flat_list) for each output cell with the flat input indices its window
// covers (padding cells skipped), in row-major window order.
template <class F> void pool_windows(const Shape& xs, const Shape& ys, const PoolAttr& a, F f) {
  std::int64_t H = xs[xs.size() - 2], W = xs[xs.size() - 1];
  std::int64_t OH = ys[ys.size() - 2], OW = ys[ys.size() - 1];
  std::int64_t planes = H * W == 0 ? 0 : num_elements(xs) / (H * W);
  std::vector<std::int64_t> cells;
  for (std::int64_t p = 0; p < planes; ++p)
    for (std::int64_t oh = 0; oh < OH; ++oh)
      for (std::int64_t ow = 0; ow < OW; ++ow) {
        cells.clear();
        for (std::int64_t i = 0; i < a.window[0]; ++i)
          for (std::int64_t j = 0; j < a.window[1]; ++j) {
            std::int64_t h = oh * a.strides[0] - a.pad_low[0] + i, w = ow * a.strides[1] - a.pad_low[1] + j;
            if (h >= 0 && h < H && w >= 0 && w < W) cells.push_back(p * H * W + h * W + w);
          }
        f(p * OH * OW + oh * OW + ow, cells);
      }
}

TensorType infer_pool(const std::vector<Tensor>& in, const Attr& attr) {
  require_float_operands(in);
  return {pool_output_shape(in[0].shape(), pool_attr(attr)), in[0].dtype()};
}

// max_pool_grad(x, g) and avg_pool_grad(g): g of the pooled shape -> the input's shape.
TensorType infer_pool_grad(const std::vector<Tensor>& in, const Attr& attr) {
  require_float_operands(in);
  const PoolAttr& a = pool_attr(attr);
  Shape input = in.size() == 2 ? in[0].shape() : a.input_shape;
  const Tensor& g = in.back();
  Shape y = pool_output_shape(input, a);
  if (y != g.shape())
    fail_shape("the cotangent has shape " + shape_string(g.shape()) + " but pooling an input of shape " +
                   shape_string(input) + " gives " + shape_string(y),
               "Pass a cotangent of the pooled output's shape.");
  return {input, g.dtype()};
}

// The first position (in row-major window order) of the window's maximum; NaN wins, as in max.
std::int64_t window_argmax(const std::vector<double>& x, const std::vector<std::int64_t>& cells) {
  std::int64_t best = cells[0];
  for (std::int64_t c : cells) {
    double v = x[static_cast<std::size_t>(c)], b = x[static_cast<std::size_t>(best)];
    if (std::isnan(b)) break;
    if (std::isnan(v) || v > b) best = c;
  }
  return best;
}

Array eval_max_pool(const EvalArgs& args) {
  auto xv = args.inputs[0].to_vector();
  std::vector<double> y(static_cast<std::size_t>(num_elements(args.node.type.shape)));
  pool_windows(args.inputs[0].shape(), args.node.type.shape, pool_attr(args.node.attr),
               [&](std::int64_t o, const std::vector<std::int64_t>& cells) {
                 y[static_cast<std::size_t>(o)] = xv[static_cast<std::size_t>(window_argmax(xv, cells))];
               });
  return to_array(y, args.node.type);
}

Array eval_max_pool_grad(const EvalArgs& args) {
  auto xv = args.inputs[0].to_vector(), gv = args.inputs[1].to_vector();
  std::vector<double> out(xv.size(), 0.0);
  pool_windows(args.inputs[0].shape(), args.inputs[1].shape(), pool_attr(args.node.attr),
               [&](std::int64_t o, const std::vector<std::int64_t>& cells) {
                 out[static_cast<std::size_t>(window_argmax(xv, cells))] += gv[static_cast<std::size_t>(o)];
               });
  return to_array(out, args.node.type);
}

Array eval_avg_pool(const EvalArgs& args) {
  auto xv = args.inputs[0].to_vector();
  std::vector<double> y(static_cast<std::size_t>(num_elements(args.node.type.shape)));
  pool_windows(args.inputs[0].shape(), args.node.type.shape, pool_attr(args.node.attr),
               [&](std::int64_t o, const std::vector<std::int64_t>& cells) {
                 double s = 0;
                 for (std::int64_t c : cells) s += xv[static_cast<std::size_t>(c)];
                 y[static_cast<std::size_t>(o)] = s / static_cast<double>(cells.size());
               });
  return to_array(y, args.node.type);
}

Array eval_avg_pool_grad(const EvalArgs& args) {
  auto gv = args.inputs[0].to_vector();
  std::vector<double> out(static_cast<std::size_t>(num_elements(args.node.type.shape)), 0.0);
  pool_windows(args.node.type.shape, args.inputs[0].shape(), pool_attr(args.node.attr),
               [&](std::int64_t o, const std::vector<std::int64_t>& cells) {
                 double share = gv[static_cast<std::size_t>(o)] / static_cast<double>(cells.size());
                 for (std::int64_t c : cells) out[static_cast<std::size_t>(c)] += share;
               });
  return to_array(out, args.node.type);
}

PoolAttr pool_with_input(PoolAttr a, const Shape& input) {
  a.input_shape = input;
  return a;
}

std::vector<Tensor> vjp_max_pool(const Tensor& y, const Tensor& g) {
  const Tensor& x = y.node().inputs[0];
  return {make_node(OpKind::MaxPoolGrad, {x, g}, pool_with_input(pool_attr(y.node().attr), x.shape()))};
}

// The window elements of x at each window offset, as strided slices of the padded input, stacked
// on a new leading axis: shape (KH*KW, ..., OH, OW), offsets in row-major window order.
Tensor window_stack(const Tensor& x, const PoolAttr& a, const Shape& out, double fill) {
  int nd = x.ndim();
  std::vector<std::pair<std::int64_t, std::int64_t>> widths(static_cast<std::size_t>(nd), {0, 0});
  widths[static_cast<std::size_t>(nd - 2)] = {a.pad_low[0], a.pad_high[0]};
  widths[static_cast<std::size_t>(nd - 1)] = {a.pad_low[1], a.pad_high[1]};
  Tensor p = pad(x, widths, fill);
  std::int64_t oh = out[out.size() - 2], ow = out[out.size() - 1];
  std::vector<Tensor> parts;
  for (std::int64_t i = 0; i < a.window[0]; ++i)
    for (std::int64_t j = 0; j < a.window[1]; ++j)
      parts.push_back(slice(p, {Index::ellipsis(), Index::range(i, i + (oh - 1) * a.strides[0] + 1, a.strides[0]),
                                Index::range(j, j + (ow - 1) * a.strides[1] + 1, a.strides[1])}));
  return stack(parts, 0);
}

// z = max_pool_grad(x, g) is piecewise constant in x (no gradient) and linear in g: it scatters g
// to each window's argmax, so its transpose gathers gz from those positions.
std::vector<Tensor> vjp_max_pool_grad(const Tensor& z, const Tensor& gz) {
  const Tensor& x = z.node().inputs[0];
  const Tensor& g = z.node().inputs[1];
  const PoolAttr& a = pool_attr(z.node().attr);
  Tensor xs = window_stack(stop_gradient(x), a, g.shape(), -std::numeric_limits<double>::infinity());
  Tensor first_max = argmax(xs, 0, true);
  Tensor gathered = take_along_axis(window_stack(gz, a, g.shape(), 0), first_max, 0);
  return {Tensor(), reshape(gathered, g.shape())};
}

std::vector<Tensor> vjp_avg_pool(const Tensor& y, const Tensor& g) {
  const Tensor& x = y.node().inputs[0];
  return {make_node(OpKind::AvgPoolGrad, {g}, pool_with_input(pool_attr(y.node().attr), x.shape()))};
}

std::vector<Tensor> vjp_avg_pool_grad(const Tensor& z, const Tensor& gz) {
  return {make_node(OpKind::AvgPool, {gz}, pool_attr(z.node().attr))};
}

// ---- softmax cross-entropy: one op for the loss and one for its gradient ----
//
// loss = logsumexp(x) * sum(y) - sum(y * x) along the axis, evaluated as
// log(sum(exp(x - m))) * sum(y) - sum(y * (x - m)) with m = max(x), which never overflows and
// never subtracts two large numbers. Its gradient with respect to x is
// g * (softmax(x) * sum(y) - y): a second op, so both directions are one pass over a row.

int xent_axis(const Attr& attr) { return std::get<AxisAttr>(attr).axis; }

TensorType infer_softmax_xent(const std::vector<Tensor>& in, const Attr& attr) {
  require_float_operands(in);
  const Shape& x = in[0].shape();
  if (!shapes_match(in[1].shape(), x))
    fail_shape("logits " + shape_string(x) + " and labels " + shape_string(in[1].shape()) + " differ in shape",
               "Give labels the logits' shape, e.g. one_hot(classes, num_classes).");
  int axis = checked_axis(xent_axis(attr), static_cast<int>(x.size()));
  Shape out = x;
  out.erase(out.begin() + axis);
  if (in.size() == 3 && !shapes_match(in[2].shape(), out))
    fail_shape("the cotangent has shape " + shape_string(in[2].shape()) + " but the loss has shape " +
                   shape_string(out),
               "Pass a cotangent of the loss's shape.");
  return {in.size() == 3 ? x : out, in[0].dtype()};
}

// Visits each row (o, i) of x along the axis: fn(row offset, stride) with element k at
// offset + k * stride.
template <class F> void for_each_row(const Shape& shape, int axis, F fn) {
  AxisSplit s = split_at(shape, axis);
  for (std::int64_t o = 0; o < s.outer; ++o)
    for (std::int64_t i = 0; i < s.inner; ++i) fn(o * s.inner + i, o * s.n * s.inner + i, s.n, s.inner);
}

// The row's max and sum(exp(x - max)); an empty row has max 0 and sum 0.
std::pair<double, double> row_max_sumexp(const std::vector<double>& x, std::int64_t base, std::int64_t n,
                                         std::int64_t stride) {
  double m = n > 0 ? -std::numeric_limits<double>::infinity() : 0;
  for (std::int64_t k = 0; k < n; ++k) m = std::max(m, x[static_cast<std::size_t>(base + k * stride)]);
  double s = 0;
  for (std::int64_t k = 0; k < n; ++k) s += std::exp(x[static_cast<std::size_t>(base + k * stride)] - m);
  return {m, s};
}

Array eval_softmax_xent(const EvalArgs& args) {
  auto x = args.inputs[0].to_vector(), y = args.inputs[1].to_vector();
  std::vector<double> out(static_cast<std::size_t>(num_elements(args.node.type.shape)), 0.0);
  for_each_row(args.inputs[0].shape(), xent_axis(args.node.attr),
               [&](std::int64_t r, std::int64_t base, std::int64_t n, std::int64_t stride) {
                 if (n == 0) return;
                 auto [m, s] = row_max_sumexp(x, base, n, stride);
                 double sy = 0, syx = 0;
                 for (std::int64_t k = 0; k < n; ++k) {
                   auto e = static_cast<std::size_t>(base + k * stride);
                   sy += y[e];
                   syx += y[e] * (x[e] - m);
                 }
                 out[static_cast<std::size_t>(r)] = std::log(s) * sy - syx;
               });
  return to_array(out, args.node.type);
}

Array eval_softmax_xent_grad(const EvalArgs& args) {
  auto x = args.inputs[0].to_vector(), y = args.inputs[1].to_vector(), g = args.inputs[2].to_vector();
  std::vector<double> out(x.size(), 0.0);
  for_each_row(args.inputs[0].shape(), xent_axis(args.node.attr),
               [&](std::int64_t r, std::int64_t base, std::int64_t n, std::int64_t stride) {
                 auto [m, s] = row_max_sumexp(x, base, n, stride);
                 double sy = 0;
                 for (std::int64_t k = 0; k < n; ++k) sy += y[static_cast<std::size_t>(base + k * stride)];
                 double gr = g[static_cast<std::size_t>(r)];
                 for (std::int64_t k = 0; k < n; ++k) {
                   auto e = static_cast<std::size_t>(base + k * stride);
                   out[e] = gr * (std::exp(x[e] - m) / s * sy - y[e]);
                 }
               });
  return to_array(out, args.node.type);
}

std::vector<Tensor> vjp_softmax_xent(const Tensor& loss, const Tensor& g) {
  const Tensor& x = loss.node().inputs[0];
  const Tensor& y = loss.node().inputs[1];
  int axis = checked_axis(xent_axis(loss.node().attr), x.ndim());
  Tensor dx = make_node(OpKind::SoftmaxCrossEntropyGrad, {x, y, g}, AxisAttr{axis});
  // d loss / d y = logsumexp(x) - x.
  Tensor dy = expand_dims(g, axis) * (logsumexp(x, axis, true) - x);
  return {dx, dy};
}

// z = g * (p * sum(y) - y) with p = softmax(x): linear in g and y, and through p in x.
std::vector<Tensor> vjp_softmax_xent_grad(const Tensor& z, const Tensor& w) {
  const Tensor& x = z.node().inputs[0];
  const Tensor& y = z.node().inputs[1];
  const Tensor& g = z.node().inputs[2];
  int axis = checked_axis(xent_axis(z.node().attr), x.ndim());
  Tensor p = nn::softmax(x, axis);
  Tensor sy = sum(y, axis, true);
  Tensor ge = expand_dims(g, axis);  // the loss-shaped g with the axis put back
  Tensor u = w * ge * sy;            // the cotangent reaching p
  Tensor dx = p * (u - sum(u * p, axis, true));
  Tensor dy = sum(w * ge * p, axis, true) - w * ge;
  Tensor dg = sum(w * (p * sy - y), axis);
  return {dx, broadcast_to(dy, x.shape()), dg};
}

}  // namespace

void register_nn_ops() {
  using K = OpKind;
  // Convolutions and pooling are library calls (oneDNN, the max-pooling loop); softmax
  // cross-entropy and its gradient are row kernels (src/codegen/kernel_rows.hpp).
  using L = Lowering;
  constexpr auto F = Family::nn;
  define(K::Conv, row(F, 2, L::library, infer_conv, eval_conv, vjp_conv));
  define(K::ConvBackwardInput,
         row(F, 2, L::library, infer_conv_backward_input, eval_conv_backward_input, vjp_conv_backward_input));
  define(K::ConvBackwardFilter,
         row(F, 2, L::library, infer_conv_backward_filter, eval_conv_backward_filter, vjp_conv_backward_filter));
  define(K::MaxPool, row(F, 1, L::library, infer_pool, eval_max_pool, vjp_max_pool));
  define(K::MaxPoolGrad, row(F, 2, L::library, infer_pool_grad, eval_max_pool_grad, vjp_max_pool_grad));
  define(K::AvgPool, row(F, 1, L::library, infer_pool, eval_avg_pool, vjp_avg_pool));
  define(K::AvgPoolGrad, row(F, 1, L::library, infer_pool_grad, eval_avg_pool_grad, vjp_avg_pool_grad));
  define(K::SoftmaxCrossEntropy, row(F, 2, L::row_kernel, infer_softmax_xent, eval_softmax_xent, vjp_softmax_xent));
  define(K::SoftmaxCrossEntropyGrad,
         row(F, 3, L::row_kernel, infer_softmax_xent, eval_softmax_xent_grad, vjp_softmax_xent_grad));
}

}  // namespace ops

namespace nn {
namespace {

using ops::TypeProblem;
using Pads = std::vector<std::pair<std::int64_t, std::int64_t>>;

[[noreturn]] void fail(const char* name, const std::vector<Tensor>& operands, TypeProblem::Kind kind,
                       std::string problem, std::string fix, Loc loc) {
  ops::raise(name, operands, {kind, std::move(problem), std::move(fix)}, loc);
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// Float-only activations compute integer and bool input in float32, symx's default float.
Tensor as_float(const Tensor& x, Loc loc) { return is_inexact(x.dtype()) ? x : cast(x, DType::f32, loc); }

// (low, high) padding per spatial axis for "VALID", "SAME" (TensorFlow: out = ceil(in / stride),
// the odd cell at the end) or explicit pairs. `span` is the dilated kernel size per axis.
Pads resolve_padding(const char* name, const std::vector<Tensor>& operands, const Padding& padding, const Shape& in,
                     const std::vector<std::int64_t>& span, const std::vector<std::int64_t>& strides, Loc loc,
                     bool allow_same = true) {
  std::size_t sd = in.size();
  std::string mode = upper(padding.mode);
  if (mode == "EXPLICIT") {
    if (padding.explicit_pads.size() != sd)
      fail(name, operands, TypeProblem::Kind::value,
           "explicit padding has " + std::to_string(padding.explicit_pads.size()) +
               " (low, high) pairs but there are " + std::to_string(sd) + " spatial axes",
           "Give one (low, high) pair per spatial axis.", loc);
    return padding.explicit_pads;
  }
  if (mode == "VALID") return Pads(sd, {0, 0});
  if (mode == "UNIFORM") {
    if (padding.uniform < 0)
      fail(name, operands, TypeProblem::Kind::value,
           "padding must be non-negative, got " + std::to_string(padding.uniform),
           "Use padding >= 0, \"VALID\" or \"SAME\".", loc);
    return Pads(sd, {padding.uniform, padding.uniform});
  }
  if (mode == "SAME" && allow_same) {
    Pads pads;
    for (std::size_t i = 0; i < sd; ++i) {
      std::int64_t s = std::max<std::int64_t>(strides[i], 1);
      std::int64_t out = (in[i] + s - 1) / s;
      std::int64_t total = std::max<std::int64_t>((out - 1) * s + span[i] - in[i], 0);
      pads.emplace_back(total / 2, total - total / 2);
    }
    return pads;
  }
  fail(name, operands, TypeProblem::Kind::value, "unknown padding \"" + padding.mode + "\"",
       allow_same ? "Use \"VALID\", \"SAME\", a number of cells, or explicit (low, high) pairs, one per spatial axis."
                  : "Use \"VALID\", a number of cells, or explicit (low, high) pairs, one per spatial axis.",
       loc);
}

// Makes `values` one entry per spatial axis: a single value is repeated for every axis (PyTorch's
// stride=2); any other count than `want` is a user error.
void one_per_spatial_axis(const char* name, const std::vector<Tensor>& operands, const char* what,
                          std::vector<std::int64_t>& values, std::size_t want, Loc loc) {
  if (values.size() == 1 && want > 1) values.assign(want, values[0]);
  if (values.size() != want)
    fail(name, operands, TypeProblem::Kind::value,
         std::string(what) + " has " + std::to_string(values.size()) + " entries but there are " +
             std::to_string(want) + " spatial axes",
         "Give one value per spatial axis, or a single value for all of them.", loc);
}

// Promotes two floating operands to one dtype; integer operands are rejected.
std::pair<Tensor, Tensor> float_pair(const char* name, const Tensor& x, const Tensor& w, Loc loc) {
  for (const Tensor& t : {x, w})
    if (!is_floating(t.dtype()))
      fail(name, {x, w}, TypeProblem::Kind::dtype,
           "expects floating-point operands, got " + std::string(dtype_name(t.dtype())),
           "Cast the operands with astype(float32).", loc);
  DType d = promote_types(x.dtype(), w.dtype());
  return {cast(x, d, loc), cast(w, d, loc)};
}

void check_rank(const char* name, const Tensor& x, const Tensor& w, std::size_t rank, const char* x_layout,
                const char* w_layout, Loc loc) {
  if (static_cast<std::size_t>(x.ndim()) != rank)
    fail(name, {x, w}, TypeProblem::Kind::shape,
         "the input must be " + std::string(x_layout) + ", got shape " + shape_string(x.shape()),
         "Reshape the input to " + std::string(x_layout) + " (add a batch axis of 1 for a single example).", loc);
  if (static_cast<std::size_t>(w.ndim()) != rank)
    fail(name, {x, w}, TypeProblem::Kind::shape,
         "the weights must be " + std::string(w_layout) + ", got shape " + shape_string(w.shape()),
         "Reshape the weights to " + std::string(w_layout) + ".", loc);
}

Tensor conv_nd(const char* name, const Tensor& x_in, const Tensor& w_in, std::vector<std::int64_t> strides,
               const Padding& padding, std::vector<std::int64_t> dilation, std::int64_t groups, std::size_t sd,
               const char* x_layout, const char* w_layout, Loc loc) {
  auto [x, w] = float_pair(name, x_in, w_in, loc);
  check_rank(name, x_in, w_in, sd + 2, x_layout, w_layout, loc);
  one_per_spatial_axis(name, {x_in, w_in}, "strides", strides, sd, loc);
  one_per_spatial_axis(name, {x_in, w_in}, "dilation", dilation, sd, loc);
  Shape spatial(x.shape().begin() + 2, x.shape().end());
  std::vector<std::int64_t> span;
  for (std::size_t i = 0; i < sd; ++i) span.push_back(dilation[i] * (w.shape()[i + 2] - 1) + 1);
  Pads pads = resolve_padding(name, {x_in, w_in}, padding, spatial, span, strides, loc);
  ConvAttr attr;
  attr.strides = std::move(strides);
  attr.dilation = std::move(dilation);
  attr.groups = groups;
  for (auto [lo, hi] : pads) {
    attr.pad_low.push_back(lo);
    attr.pad_high.push_back(hi);
  }
  attr.input_shape = x.shape();
  attr.filter_shape = w.shape();
  return named_composite(name, ops::make_node(OpKind::Conv, {x, w}, attr, loc, name));
}

Tensor pool2d(OpKind op, const char* name, const Tensor& x, std::vector<std::int64_t> window,
              std::vector<std::int64_t> strides, const Padding& padding, Loc loc) {
  if (!is_floating(x.dtype()))
    fail(name, {x}, TypeProblem::Kind::dtype,
         "expects a floating-point input, got " + std::string(dtype_name(x.dtype())),
         "Cast the input with astype(float32).", loc);
  if (x.ndim() != 4)
    fail(name, {x}, TypeProblem::Kind::shape, "the input must be (N, C, H, W), got shape " + shape_string(x.shape()),
         "Reshape the input to (N, C, H, W).", loc);
  if (strides.empty()) strides = window;
  one_per_spatial_axis(name, {x}, "window", window, 2, loc);
  one_per_spatial_axis(name, {x}, "strides", strides, 2, loc);
  Shape spatial(x.shape().end() - 2, x.shape().end());
  Pads pads = resolve_padding(name, {x}, padding, spatial, window, strides, loc);
  PoolAttr attr;
  attr.window = std::move(window);
  attr.strides = std::move(strides);
  for (auto [lo, hi] : pads) {
    attr.pad_low.push_back(lo);
    attr.pad_high.push_back(hi);
  }
  attr.input_shape = x.shape();
  return named_composite(name, ops::make_node(op, {x}, attr, loc, name));
}

}  // namespace

// where(x <= 0, 0, x) rather than maximum(x, 0): the gradient at 0 is 0, as PyTorch's and JAX's relu
// (maximum would split it, 0.5), and NaN still propagates. The compiler fuses either form into a
// matrix product's epilogue (see match_relu in src/codegen/fusion.cpp).
Tensor relu(const Tensor& x, Loc loc) { return named_composite("relu", where(less_equal(x, 0, loc), 0, x, loc)); }

Tensor leaky_relu(const Tensor& x, double negative_slope, Loc loc) {
  Tensor f = as_float(x, loc);
  // At 0 the gradient is negative_slope, as PyTorch's (JAX's leaky_relu has 1 there).
  return named_composite("leaky_relu", where(greater(f, 0, loc), f, multiply(f, negative_slope, loc), loc));
}

Tensor elu(const Tensor& x, double alpha, Loc loc) {
  Tensor f = as_float(x, loc);
  // expm1 of min(x, 0) keeps the unused branch finite, so its gradient is 0 rather than NaN; min spelled
  // with where so that x = 0 takes the whole slope alpha of the negative branch (as PyTorch's elu).
  Tensor positive = greater(f, 0, loc);
  return named_composite("elu", where(positive, f, multiply(expm1(where(positive, 0, f, loc), loc), alpha, loc), loc));
}

Tensor gelu(const Tensor& x, bool approximate, Loc loc) {
  Tensor f = as_float(x, loc);
  if (approximate) {
    double c = std::sqrt(2 / std::numbers::pi);
    Tensor inner = multiply(add(f, multiply(multiply(multiply(f, f, loc), f, loc), 0.044715, loc), loc), c, loc);
    return named_composite("gelu", multiply(multiply(f, 0.5, loc), add(tanh(inner, loc), 1, loc), loc));
  }
  Tensor phi = add(erf(multiply(f, 1 / std::numbers::sqrt2, loc), loc), 1, loc);
  return named_composite("gelu", multiply(multiply(f, 0.5, loc), phi, loc));
}

// max(x, 0) + log1p(exp(-|x|)): at x = 0 the gradient is 0.5 (= sigmoid(0)) from maximum's tie rule (half)
// and abs's (0, as sign(0)); tests/python/test_kinks.py holds it to PyTorch's there.
Tensor softplus(const Tensor& x, Loc loc) {
  Tensor f = as_float(x, loc);
  return named_composite("softplus", add(maximum(f, 0, loc), log1p(exp(negative(abs(f, loc), loc), loc), loc), loc));
}

Tensor sigmoid(const Tensor& x, Loc loc) { return symx::sigmoid(x, loc); }

namespace {
// x - max(x, axis) with the max held constant for differentiation.
Tensor shifted(const char* name, const Tensor& x, int axis, Loc loc) {
  try {
    ops::checked_axis(axis, x.ndim());
  } catch (const TypeProblem& problem) {
    ops::raise(name, {x}, problem, loc);
  }
  return subtract(x, stop_gradient(max(x, axis, true, loc), loc), loc);
}
}  // namespace

Tensor softmax(const Tensor& x, int axis, Loc loc) {
  Tensor e = exp(shifted("softmax", as_float(x, loc), axis, loc), loc);
  return named_composite("softmax", divide(e, sum(e, axis, true, loc), loc));
}

Tensor log_softmax(const Tensor& x, int axis, Loc loc) {
  Tensor s = shifted("log_softmax", as_float(x, loc), axis, loc);
  return named_composite("log_softmax", subtract(s, log(sum(exp(s, loc), axis, true, loc), loc), loc));
}

Tensor softmax_cross_entropy(const Tensor& logits, const Tensor& labels, int axis, Loc loc) {
  if (!shapes_match(logits.shape(), labels.shape()))
    ops::raise("softmax_cross_entropy", {logits, labels},
               {ops::TypeProblem::Kind::shape, "logits and labels have different shapes",
                "Give labels the logits' shape, e.g. one_hot(classes, num_classes)."},
               loc);
  Tensor x = as_float(logits, loc);
  Tensor y = cast(labels, x.dtype(), loc);
  int normalized = axis;
  try {
    normalized = ops::checked_axis(axis, x.ndim());
  } catch (const TypeProblem& problem) {
    ops::raise("softmax_cross_entropy", {logits, labels}, problem, loc);
  }
  return ops::make_node(OpKind::SoftmaxCrossEntropy, {x, y}, AxisAttr{normalized}, loc, "softmax_cross_entropy");
}

Tensor conv1d(const Tensor& x, const Tensor& w, std::int64_t stride, const Padding& padding, std::int64_t dilation,
              std::int64_t groups, Loc loc) {
  return conv_nd("conv1d", x, w, {stride}, padding, {dilation}, groups, 1, "(N, C, W)", "(O, C/groups, K)", loc);
}

Tensor conv2d(const Tensor& x, const Tensor& w, std::vector<std::int64_t> strides, const Padding& padding,
              std::vector<std::int64_t> dilation, std::int64_t groups, Loc loc) {
  return conv_nd("conv2d", x, w, std::move(strides), padding, std::move(dilation), groups, 2, "(N, C, H, W)",
                 "(O, C/groups, KH, KW)", loc);
}

Tensor conv2d_transpose(const Tensor& x_in, const Tensor& w_in, std::vector<std::int64_t> strides,
                        const Padding& padding, std::vector<std::int64_t> output_padding,
                        std::vector<std::int64_t> dilation, std::int64_t groups, Loc loc) {
  const char* name = "conv2d_transpose";
  auto [x, w] = float_pair(name, x_in, w_in, loc);
  check_rank(name, x_in, w_in, 4, "(N, C_in, H, W)", "(C_in, C_out/groups, KH, KW)", loc);
  one_per_spatial_axis(name, {x_in, w_in}, "strides", strides, 2, loc);
  one_per_spatial_axis(name, {x_in, w_in}, "dilation", dilation, 2, loc);
  one_per_spatial_axis(name, {x_in, w_in}, "output_padding", output_padding, 2, loc);
  if (groups < 1)
    fail(name, {x_in, w_in}, TypeProblem::Kind::value, "groups must be positive, got " + std::to_string(groups),
         "Use groups >= 1.", loc);
  if (x.shape()[1] != w.shape()[0])
    fail(name, {x_in, w_in}, TypeProblem::Kind::shape,
         "input has " + std::to_string(x.shape()[1]) + " channels but the weights expect " +
             std::to_string(w.shape()[0]) + " (the weights are (C_in, C_out/groups, KH, KW))",
         "Make the weights' first axis the input channels.", loc);
  if (w.shape()[0] % groups != 0)
    fail(name, {x_in, w_in}, TypeProblem::Kind::shape,
         "groups (" + std::to_string(groups) + ") must divide the input channels (" + std::to_string(w.shape()[0]) +
             ")",
         "Choose groups that divides the number of input channels.", loc);
  Shape spatial(x.shape().begin() + 2, x.shape().end());
  std::vector<std::int64_t> span;
  for (std::size_t i = 0; i < 2; ++i) span.push_back(dilation[i] * (w.shape()[i + 2] - 1) + 1);
  Pads pads = resolve_padding(name, {x_in, w_in}, padding, spatial, span, strides, loc, false);
  ConvAttr attr;
  attr.strides = strides;
  attr.dilation = dilation;
  attr.groups = groups;
  Shape out{x.shape()[0], w.shape()[1] * groups};
  for (std::size_t i = 0; i < 2; ++i) {
    auto [lo, hi] = pads[i];
    attr.pad_low.push_back(lo);
    attr.pad_high.push_back(hi);
    if (output_padding[i] < 0 || output_padding[i] >= std::max<std::int64_t>(strides[i], 1))
      fail(name, {x_in, w_in}, TypeProblem::Kind::value,
           "output_padding " + std::to_string(output_padding[i]) + " on spatial axis " + std::to_string(i) +
               " must be non-negative and smaller than the stride (" + std::to_string(strides[i]) + ")",
           "Use output_padding in [0, stride).", loc);
    std::int64_t size = (spatial[i] - 1) * strides[i] - lo - hi + span[i] + output_padding[i];
    if (size < 1)
      fail(name, {x_in, w_in}, TypeProblem::Kind::shape,
           "the output would have size " + std::to_string(size) + " on spatial axis " + std::to_string(i),
           "Use less padding or a larger input.", loc);
    out.push_back(size);
  }
  attr.input_shape = out;
  attr.filter_shape = w.shape();
  return named_composite(name, ops::make_node(OpKind::ConvBackwardInput, {x, w}, attr, loc, name));
}

Tensor max_pool2d(const Tensor& x, std::vector<std::int64_t> window, std::vector<std::int64_t> strides,
                  const Padding& padding, Loc loc) {
  return pool2d(OpKind::MaxPool, "max_pool2d", x, std::move(window), std::move(strides), padding, loc);
}

Tensor avg_pool2d(const Tensor& x, std::vector<std::int64_t> window, std::vector<std::int64_t> strides,
                  const Padding& padding, Loc loc) {
  return pool2d(OpKind::AvgPool, "avg_pool2d", x, std::move(window), std::move(strides), padding, loc);
}

}  // namespace nn
}  // namespace symx
