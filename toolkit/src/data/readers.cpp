#include "symx/data.hpp"
