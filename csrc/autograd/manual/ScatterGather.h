// Hand-written backward helpers for the ScatterGather area (issue 10), declared for the
// generated autograd files; definitions in manual/ScatterGather.cpp.
#pragma once
#include "autograd/FunctionsManual.h"
