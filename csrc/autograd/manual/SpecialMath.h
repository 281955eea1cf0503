// Hand-written backward helpers for the SpecialMath area (issue 10), declared for the
// generated autograd files; definitions in manual/SpecialMath.cpp.
#pragma once
#include "autograd/FunctionsManual.h"
