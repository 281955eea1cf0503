// Hand-written backward helpers for the EinsumMisc area (issue 10), declared for the
// generated autograd files; definitions in manual/EinsumMisc.cpp when the area needs any.
#pragma once
#include "autograd/FunctionsManual.h"
