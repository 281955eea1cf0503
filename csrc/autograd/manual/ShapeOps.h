// Hand-written backward helpers for the ShapeOps area (issue 10), declared for the
// generated autograd files; definitions in manual/ShapeOps.cpp.
#pragma once
#include "autograd/FunctionsManual.h"
