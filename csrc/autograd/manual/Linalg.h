// Hand-written backward helpers for the Linalg area (issue 10), declared for the
// generated autograd files; definitions in manual/Linalg.cpp.
#pragma once
#include "autograd/FunctionsManual.h"
