// Hand-written backward helpers for the NnNorm area (issue 10), declared for the
// generated autograd files; definitions in manual/NnNorm.cpp.
#pragma once
#include "autograd/FunctionsManual.h"
