// Shape/dtype checks shared by the CPU and Meta kernels of the BLAS-backed ops
// (mm, bmm, addmm, dot, mv), so both backends raise the same PyTorch messages.
#pragma once
#include "../../c10/Tensor.h"

namespace at::native {

// The C++ type name PyTorch prints in "expected m1 and m2 to have the same dtype".
inline const char* cpp_type_name(ScalarType t) {
  switch (t) {
    case ScalarType::Bool: return "bool";
    case ScalarType::Byte: return "unsigned char";
    case ScalarType::Char: return "signed char";
    case ScalarType::Short: return "short int";
    case ScalarType::Int: return "int";
    case ScalarType::Long: return "long int";
    case ScalarType::Half: return "c10::Half";
    case ScalarType::BFloat16: return "c10::BFloat16";
    case ScalarType::Float: return "float";
    case ScalarType::Double: return "double";
    default: return "undefined";
  }
}

// mat1 (n x k) and mat2 (k x m): both 2-D, same dtype, inner sizes equal.
inline void check_mm(const TensorBase& self, const TensorBase& mat2, const char* a = "self") {
  TL_CHECK(self.dim() == 2, a, " must be a matrix");
  TL_CHECK(mat2.dim() == 2, "mat2 must be a matrix");
  TL_CHECK(self.sizes()[1] == mat2.sizes()[0], "mat1 and mat2 shapes cannot be multiplied (", self.sizes()[0], "x",
           self.sizes()[1], " and ", mat2.sizes()[0], "x", mat2.sizes()[1], ")");
  TL_CHECK(self.scalar_type() == mat2.scalar_type(), "expected m1 and m2 to have the same dtype, but got: ",
           cpp_type_name(self.scalar_type()), " != ", cpp_type_name(mat2.scalar_type()));
}

inline void check_bmm(const TensorBase& self, const TensorBase& mat2) {
  TL_CHECK(self.dim() == 3, "batch1 must be a 3D tensor");
  TL_CHECK(mat2.dim() == 3, "batch2 must be a 3D tensor");
  int64_t b = self.sizes()[0], k = self.sizes()[2];
  TL_CHECK(mat2.sizes()[0] == b && mat2.sizes()[1] == k,
           "Expected size for first two dimensions of batch2 tensor to be: [", b, ", ", k, "] but got: [",
           mat2.sizes()[0], ", ", mat2.sizes()[1], "].");
  TL_CHECK(self.scalar_type() == mat2.scalar_type(), "expected scalar type ", toString(self.scalar_type()),
           " but found ", toString(mat2.scalar_type()));
}

inline void check_dot(const TensorBase& self, const TensorBase& other) {
  TL_CHECK(self.dim() == 1 && other.dim() == 1, "1D tensors expected, but got ", self.dim(), "D and ", other.dim(),
           "D tensors");
  TL_CHECK(self.scalar_type() == other.scalar_type(), "dot : expected both vectors to have same dtype, but found ",
           toString(self.scalar_type()), " and ", toString(other.scalar_type()));
  TL_CHECK(self.numel() == other.numel(), "inconsistent tensor size, expected tensor [", self.numel(),
           "] and src [", other.numel(), "] to have the same number of elements, but got ", self.numel(), " and ",
           other.numel(), " elements respectively");
}

inline void check_mv(const TensorBase& self, const TensorBase& vec) {
  TL_CHECK(self.dim() == 2 && vec.dim() == 1, "vector + matrix @ vector expected, got 1, ", self.dim(), ", ",
           vec.dim());
  TL_CHECK(self.sizes()[1] == vec.sizes()[0], "size mismatch, got input (", self.sizes()[0], "), mat (",
           self.sizes()[0], "x", self.sizes()[1], "), vec (", vec.sizes()[0], ")");
  TL_CHECK(self.scalar_type() == vec.scalar_type(), "addmv input tensors must have the same dtype, but got ",
           toString(self.scalar_type()), ", ", toString(self.scalar_type()), ", and ", toString(vec.scalar_type()));
}

// addmm: mat1/mat2 checked like mm; self must broadcast to (n, m) and share their dtype.
inline void check_addmm(const TensorBase& self, const TensorBase& mat1, const TensorBase& mat2) {
  check_mm(mat1, mat2, "mat1");
  TL_CHECK(self.scalar_type() == mat2.scalar_type(), "self and mat2 must have the same dtype, but got ",
           toString(self.scalar_type()), " and ", toString(mat2.scalar_type()));
  int64_t target[2] = {mat1.sizes()[0], mat2.sizes()[1]};
  TL_CHECK(self.dim() <= 2, "expand(", self.sizes(), ", size=[", target[0], ", ", target[1],
           "]): the number of sizes provided (2) must be greater or equal to the number of dimensions in the tensor (",
           self.dim(), ")");
  for (int64_t i = self.dim() - 1; i >= 0; --i) {  // trailing dim first, as expand reports
    int64_t d = 2 - self.dim() + i, s = self.sizes()[i];
    TL_CHECK(s == 1 || s == target[d], "The expanded size of the tensor (", target[d],
             ") must match the existing size (", s, ") at non-singleton dimension ", d, ".  Target sizes: [",
             target[0], ", ", target[1], "].  Tensor sizes: ", self.sizes());
  }
}

}  // namespace at::native
