// symx/toolkit.hpp: the whole toolkit (link symx::nn): activations, initializers, layers, losses
// and metrics (symx::nn), optimizers and schedules (symx::optim), distributions (symx::stats).
#pragma once

#include "symx/nn/activations.hpp"
#include "symx/nn/init.hpp"
#include "symx/nn/layers.hpp"
#include "symx/nn/losses.hpp"
#include "symx/optim.hpp"
#include "symx/optim/schedules.hpp"
#include "symx/stats.hpp"
#include "symx/symx.hpp"
