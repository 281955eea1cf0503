#include "Library.h"

namespace c10 {

std::string Library::qualify(const std::string& name) const {
  if (name.find("::") != std::string::npos) return name;
  return ns_ + "::" + name;
}

// Splits "name.overload(args) -> rets" at top level; counts commas outside
// brackets. Alias annotations like Tensor(a!) contain parentheses, so depth matters.
void schemaArity(const std::string& schema, size_t* nargs, size_t* nret, std::string* name) {
  size_t open = schema.find('(');
  TL_CHECK_VALUE(open != std::string::npos, "invalid schema '", schema, "': missing '('");
  *name = schema.substr(0, open);
  int depth = 0;
  size_t i = open, close = std::string::npos;
  size_t count = 0;
  bool any = false;
  for (; i < schema.size(); ++i) {
    char c = schema[i];
    if (c == '(' || c == '[') ++depth;
    else if (c == ')' || c == ']') {
      if (--depth == 0) { close = i; break; }
    } else if (depth == 1) {
      if (c == ',') ++count;
      else if (c != ' ' && c != '*') any = true;
    }
  }
  TL_CHECK_VALUE(close != std::string::npos, "invalid schema '", schema, "': unbalanced parentheses");
  // A bare `*` marker is not an argument.
  std::string args = schema.substr(open + 1, close - open - 1);
  size_t stars = 0;
  for (size_t p = 0; p < args.size(); ++p)
    if (args[p] == '*' && (p + 1 == args.size() || args[p + 1] == ',')) ++stars;
  *nargs = any ? count + 1 - stars : 0;
  size_t arrow = schema.find("->", close);
  TL_CHECK_VALUE(arrow != std::string::npos, "invalid schema '", schema, "': missing '->'");
  std::string rets = schema.substr(arrow + 2);
  size_t a = rets.find_first_not_of(' ');
  rets = a == std::string::npos ? "" : rets.substr(a);
  if (rets.empty() || rets == "()") *nret = 0;
  else if (rets[0] == '(') {
    size_t n = 1;
    int d = 0;
    for (char c : rets) {
      if (c == '(' || c == '[') ++d;
      else if (c == ')' || c == ']') --d;
      else if (c == ',' && d == 1) ++n;
    }
    *nret = n;
  } else *nret = 1;
}

Library& Library::def(const std::string& schema) {
  FunctionSchema parsed = FunctionSchema::parse(schema);
  if (parsed.ns().empty()) parsed = parsed.withNamespace(ns_);
  handles_.push_back(Dispatcher::singleton().addSchema(parsed.str()));
  return *this;
}

Library& Library::impl(const std::string& name, DispatchKey key, KernelFunction k) {
  TL_CHECK(key != DispatchKey::Undefined, "Library::impl(", name, "): no dispatch key given");
  handles_.push_back(Dispatcher::singleton().addKernel(qualify(name), key, std::move(k)));
  return *this;
}

Library& Library::fallback(KernelFunction k) {
  TL_CHECK(key_ != DispatchKey::Undefined, "Library::fallback: the library has no dispatch key");
  handles_.push_back(Dispatcher::singleton().addFallback(key_, std::move(k)));
  return *this;
}

}  // namespace c10
