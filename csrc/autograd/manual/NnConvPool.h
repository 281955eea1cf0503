// Hand-written backward helpers for the NnConvPool area (issue 10), declared for the
// generated autograd files; definitions in manual/NnConvPool.cpp.
#pragma once
#include "autograd/FunctionsManual.h"
