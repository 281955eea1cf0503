// Hand-written backward helpers for the Statistics area (issue 10), declared for the
// generated autograd files; definitions in manual/Statistics.cpp when the area needs any.
#pragma once
#include "autograd/FunctionsManual.h"
