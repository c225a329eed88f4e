// SymJAX's graph API in C++ (symx/graph.hpp): named graphs entered with WithGraph, their scopes and
// collections, get_variables / get_ops patterns, roots and ancestors; and a few numpy.hpp composites.
#include <gtest/gtest.h>

#include <cmath>

#include "symx/symx.hpp"

namespace sx = symx;

TEST(GraphApi, NamedGraphsScopeNamesAndListTheirNodes) {
  sx::reset_default_graph();
  sx::Tensor outer = sx::variable(sx::Array::zeros({1}, sx::DType::f32), "w");
  sx::Graph g("model1");
  sx::Tensor w, y;
  {
    sx::WithGraph with(g);
    EXPECT_EQ(&sx::current_graph(), &g);
    EXPECT_EQ(g.current_scope(), "model1/");
    w = sx::variable(sx::Array::zeros({1}, sx::DType::f32), "w");
    y = w + 1;
    EXPECT_EQ(sx::variables(), std::vector<sx::Tensor>{w});
    EXPECT_THROW(g.enter(), sx::ValueError);
  }
  EXPECT_NE(&sx::current_graph(), &g);
  EXPECT_EQ(w.name(), "model1/w");
  EXPECT_EQ(w.scope(), "/model1/");
  EXPECT_EQ(y.scope(), "/model1/");
  EXPECT_EQ(g.variable("w"), w);
  EXPECT_EQ(sx::variables(), (std::vector<sx::Tensor>{outer, w}));
  EXPECT_EQ(sx::get_variables("*/w"), (std::vector<sx::Tensor>{outer, w}));  // "/w" and "/model1/w"
  EXPECT_EQ(sx::get_variables("/model1/w"), std::vector<sx::Tensor>{w});
  EXPECT_EQ(sx::get_variables("w"), (std::vector<sx::Tensor>{outer, w}));
  EXPECT_EQ(sx::get_variables("*", "/model1/"), std::vector<sx::Tensor>{w});
  EXPECT_EQ(sx::get_ops("*add"), std::vector<sx::Tensor>{y});
  EXPECT_EQ(sx::roots({y}), std::vector<sx::Tensor>{w});
  EXPECT_EQ(sx::ancestors({y}).size(), 2u);  // w and the constant 1
  EXPECT_GT(y.id(), outer.id());
  g.reset();
  g.clear();
  EXPECT_TRUE(g.variables().empty());
  sx::reset_default_graph();
}

TEST(GraphApi, NumpyCompositesInCpp) {
  sx::reset_default_graph();
  sx::Tensor x = sx::constant(sx::Array::zeros({3}, sx::DType::f64));
  EXPECT_DOUBLE_EQ(sx::logaddexp(x, 0.0).eval().get_flat(0), std::log(2.0));
  EXPECT_EQ(sx::asin(x).op(), sx::OpKind::Arcsin);
  EXPECT_TRUE(sx::can_cast(sx::DType::i32, sx::DType::f64));
  EXPECT_FALSE(sx::can_cast(sx::DType::f64, sx::DType::f32));
  EXPECT_EQ(sx::result_type({sx::DType::i32}, {2.5}), sx::DType::f32);
  EXPECT_EQ(sx::broadcast_shapes({{3, 1}, {4}}), (sx::Shape{3, 4}));
  EXPECT_THROW(sx::broadcast_shapes({{3}, {4}}), sx::ShapeError);
  EXPECT_EQ(sx::all(x > -1).eval().get_flat(0), 1.0);
  sx::reset_default_graph();
}
