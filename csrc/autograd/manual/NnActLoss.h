// Hand-written backward helpers for the NnActLoss area (issue 10), declared for the
// generated autograd files; definitions in manual/NnActLoss.cpp.
#pragma once
#include "autograd/FunctionsManual.h"
