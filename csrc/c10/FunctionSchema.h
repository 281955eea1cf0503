// The parsed form of an operator schema, PyTorch's grammar:
//   ns::name.overload(Type name=default, *, kw-only..., Tensor(a!) out) -> (Tensor(a) values, Tensor indices)
// The dispatcher keeps one per operator, so argument names, types, defaults,
// alias annotations, keyword-only markers and returns are available to boxed
// kernels, tools and the typed-registration check (cppSignature()).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace c10 {

// A schema type: a base name followed by `?` / `[N]` suffixes applied inside
// out (`Tensor?[]` is a list of optional tensors, `int[]?` an optional list).
struct SchemaType {
  enum class Base : uint8_t { Tensor, Int, SymInt, Float, Bool, Str, Scalar, ScalarType, Layout, Device, Generator,
                              MemoryFormat, Dimname };
  struct Suffix {
    bool optional;     // `?`; otherwise a list `[size]`
    int64_t size = -1; // list size, -1 when none is written
  };
  Base base = Base::Tensor;
  std::vector<Suffix> suffixes;

  bool isOptional() const { return !suffixes.empty() && suffixes.back().optional; }
  bool isList() const { return !suffixes.empty() && !suffixes.back().optional; }
  // The type with its outermost suffix removed (the element of a list, the
  // value of an optional).
  SchemaType inner() const;
  std::string str() const;  // without annotation
  static const char* baseName(Base b);
};

// `(a)`, `(a!)`, `(a|b!)`, `(a -> *)`: which alias sets an argument or return
// belongs to, whether it is written, and (for views of lists) the sets after.
struct AliasAnnotation {
  std::vector<std::string> before;
  bool is_write = false;
  std::vector<std::string> after;
  std::string str() const;
};

struct SchemaArgument {
  std::string name;
  SchemaType type;
  std::optional<AliasAnnotation> alias;
  std::optional<std::string> default_value;  // normalised text: None, True, 2., [0, 1], "mean"
  bool kwarg_only = false;
  bool isOut() const { return kwarg_only && alias && alias->is_write; }
  std::string str() const;
};

struct SchemaReturn {
  std::string name;  // empty when unnamed
  SchemaType type;
  std::optional<AliasAnnotation> alias;
  std::string str() const;
};

class FunctionSchema {
 public:
  // Throws ValueError("invalid schema '<text>': <what> at column N") on malformed input.
  static FunctionSchema parse(const std::string& text);

  const std::string& ns() const { return ns_; }           // "aten", or "" when unqualified
  const std::string& name() const { return name_; }       // "add"
  const std::string& overload() const { return overload_; }  // "Tensor", or ""
  std::string qualifiedName() const;                      // "aten::add.Tensor"
  const std::vector<SchemaArgument>& arguments() const { return arguments_; }
  const std::vector<SchemaReturn>& returns() const { return returns_; }
  // The schema printed back in canonical form (PyTorch's str(schema) spacing).
  std::string str() const;
  FunctionSchema withNamespace(const std::string& ns) const;

  // The C++ signature a kernel or typed handle of this operator has, spelled
  // as describeCppType spells types (KernelFunction.h): out= arguments come
  // first (at::add_out(out, self, other)), Tensor/Scalar/Generator (and
  // their optionals) by const reference, Tensor lists as ArrayRef, returns as
  // a value, a std::tuple, std::vector for Tensor[], or void.
  std::string cppSignature() const;

 private:
  std::string ns_, name_, overload_;
  std::vector<SchemaArgument> arguments_;
  std::vector<SchemaReturn> returns_;
};

}  // namespace c10
