// Hand-written backward helpers for the RandomDists area (issue 10), declared for the
// generated autograd files; definitions in manual/RandomDists.cpp when the area needs any.
#pragma once
#include "autograd/FunctionsManual.h"
