// Backward helpers of the shape ops: none are needed beyond the derivative
// formulas in native_functions.yaml (flip, tril/triu, diag_embed and the
// *_scatter ops are linear and their formulas call forward ops), so this file
// only anchors the area's translation unit next to its header.
#include "autograd/manual/ShapeOps.h"
