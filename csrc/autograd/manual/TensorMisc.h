// Hand-written backward helpers for the TensorMisc area (issue 10), declared for the
// generated autograd files; definitions in manual/TensorMisc.cpp when the area needs any.
#pragma once
#include "autograd/FunctionsManual.h"
