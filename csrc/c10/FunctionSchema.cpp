#include "FunctionSchema.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include "Exception.h"

namespace c10 {

// ------------------------------------------------------------------ printing

static const char* const kBaseNames[] = {"Tensor", "int", "SymInt", "float", "bool", "str", "Scalar", "ScalarType",
                                         "Layout", "Device", "Generator", "MemoryFormat", "Dimname"};
static constexpr int kNumBases = sizeof(kBaseNames) / sizeof(kBaseNames[0]);

const char* SchemaType::baseName(Base b) { return kBaseNames[(int)b]; }

SchemaType SchemaType::inner() const {
  SchemaType t = *this;
  if (!t.suffixes.empty()) t.suffixes.pop_back();
  return t;
}

static std::string suffixText(const std::vector<SchemaType::Suffix>& sx) {
  std::string s;
  for (const auto& x : sx) {
    if (x.optional) s += "?";
    else s += x.size < 0 ? "[]" : "[" + std::to_string(x.size) + "]";
  }
  return s;
}

std::string SchemaType::str() const { return baseName(base) + suffixText(suffixes); }

static std::string joinNames(const std::vector<std::string>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "|" : "") + v[i];
  return s;
}

std::string AliasAnnotation::str() const {
  std::string s = joinNames(before) + (is_write ? "!" : "");
  if (!after.empty()) s += " -> " + joinNames(after);
  return s;
}

// The annotation sits right after the base name: `Tensor(a)[]`, `Tensor(a!)?`.
static std::string annotatedType(const SchemaType& t, const std::optional<AliasAnnotation>& a) {
  std::string s = SchemaType::baseName(t.base);
  if (a) s += "(" + a->str() + ")";
  return s + suffixText(t.suffixes);
}

std::string SchemaArgument::str() const {
  std::string s = annotatedType(type, alias) + " " + name;
  if (default_value) s += "=" + *default_value;
  return s;
}

std::string SchemaReturn::str() const {
  std::string s = annotatedType(type, alias);
  return name.empty() ? s : s + " " + name;
}

std::string FunctionSchema::qualifiedName() const {
  std::string s = ns_.empty() ? name_ : ns_ + "::" + name_;
  return overload_.empty() ? s : s + "." + overload_;
}

std::string FunctionSchema::str() const {
  std::string s = qualifiedName() + "(";
  bool kw = false;
  for (size_t i = 0; i < arguments_.size(); ++i) {
    if (i) s += ", ";
    if (arguments_[i].kwarg_only && !kw) {
      s += "*, ";
      kw = true;
    }
    s += arguments_[i].str();
  }
  s += ") -> ";
  if (returns_.size() == 1 && returns_[0].name.empty()) return s + returns_[0].str();
  s += "(";
  for (size_t i = 0; i < returns_.size(); ++i) s += (i ? ", " : "") + returns_[i].str();
  return s + ")";
}

FunctionSchema FunctionSchema::withNamespace(const std::string& ns) const {
  FunctionSchema s = *this;
  s.ns_ = ns;
  return s;
}

// ------------------------------------------------------------------ C++ signature
// Must spell types exactly as describeCppType (KernelFunction.h) does.

static std::string cppValueType(const SchemaType& t) {
  if (t.suffixes.empty()) {
    switch (t.base) {
      case SchemaType::Base::Tensor: return "at::TensorBase";
      case SchemaType::Base::Int:
      case SchemaType::Base::SymInt: return "int64_t";
      case SchemaType::Base::Float: return "double";
      case SchemaType::Base::Bool: return "bool";
      case SchemaType::Base::Str: return "std::string_view";
      case SchemaType::Base::Scalar: return "at::Scalar";
      case SchemaType::Base::ScalarType: return "at::ScalarType";
      case SchemaType::Base::Layout: return "at::Layout";
      case SchemaType::Base::Device: return "at::Device";
      case SchemaType::Base::Generator: return "c10::Generator";
      case SchemaType::Base::MemoryFormat: return "at::MemoryFormat";
      case SchemaType::Base::Dimname: break;
    }
    return "<no C++ type for schema type " + t.str() + ">";
  }
  if (t.isOptional()) return "std::optional<" + cppValueType(t.inner()) + ">";
  // Lists: Tensor[] and Tensor?[] are both passed as a TensorBase list (an
  // undefined tensor stands for None), int[] / SymInt[] as IntArrayRef.
  SchemaType elem = t.inner();
  if (elem.base == SchemaType::Base::Tensor && elem.suffixes.size() <= 1) return "at::TensorBaseList";
  if (elem.suffixes.empty()) {
    if (elem.base == SchemaType::Base::Int || elem.base == SchemaType::Base::SymInt) return "at::IntArrayRef";
    if (elem.base == SchemaType::Base::Float) return "c10::ArrayRef<double>";
    if (elem.base == SchemaType::Base::Bool) return "c10::ArrayRef<bool>";
  }
  return "<no C++ type for schema type " + t.str() + ">";
}

static bool passedByConstRef(SchemaType::Base b) {
  return b == SchemaType::Base::Tensor || b == SchemaType::Base::Scalar || b == SchemaType::Base::Generator;
}

static std::string cppArgType(const SchemaType& t) {
  std::string v = cppValueType(t);
  bool plain = t.suffixes.empty() || (t.suffixes.size() == 1 && t.suffixes[0].optional);
  return plain && passedByConstRef(t.base) ? "const " + v + "&" : v;
}

static std::string cppReturnType(const SchemaType& t) {
  if (t.isList() && t.inner().suffixes.empty() && t.base == SchemaType::Base::Tensor) return "std::vector<at::TensorBase>";
  return cppValueType(t);
}

std::string FunctionSchema::cppSignature() const {
  std::string ret;
  if (returns_.empty()) ret = "void";
  else if (returns_.size() == 1) ret = cppReturnType(returns_[0].type);
  else {
    ret = "std::tuple<";
    for (size_t i = 0; i < returns_.size(); ++i) ret += (i ? ", " : "") + cppReturnType(returns_[i].type);
    ret += ">";
  }
  std::vector<const SchemaArgument*> order;
  for (const auto& a : arguments_)
    if (a.isOut()) order.push_back(&a);
  for (const auto& a : arguments_)
    if (!a.isOut()) order.push_back(&a);
  std::string s = ret + "(";
  for (size_t i = 0; i < order.size(); ++i) s += (i ? ", " : "") + cppArgType(order[i]->type);
  return s + ")";
}

// ------------------------------------------------------------------ parsing

namespace {

// Recursive descent over the text; every error names the text and a column.
class SchemaParser {
 public:
  explicit SchemaParser(const std::string& text) : text_(text) {}

  [[noreturn]] void fail(const std::string& what) const {
    TL_CHECK_VALUE(false, "invalid schema '", text_, "': ", what, " at column ", pos_ + 1);
    std::abort();
  }

  void skipSpace() {
    while (pos_ < text_.size() && std::isspace((unsigned char)text_[pos_])) ++pos_;
  }
  bool atEnd() {
    skipSpace();
    return pos_ >= text_.size();
  }
  char peekChar() {
    skipSpace();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  std::string found() {
    skipSpace();
    if (pos_ >= text_.size()) return "found end of schema";
    return "found '" + text_.substr(pos_, 1) + "'";
  }
  bool accept(const char* tok) {
    skipSpace();
    size_t n = std::char_traits<char>::length(tok);
    if (text_.compare(pos_, n, tok) != 0) return false;
    pos_ += n;
    return true;
  }
  void expect(const char* tok) {
    if (!accept(tok)) fail(std::string("expected '") + tok + "' but " + found());
  }
  static bool identStart(char c) { return std::isalpha((unsigned char)c) || c == '_'; }
  static bool identChar(char c) { return std::isalnum((unsigned char)c) || c == '_'; }
  bool peekIdent() { return identStart(peekChar()); }
  std::string ident(const char* what) {
    if (!peekIdent()) fail(std::string("expected ") + what + " but " + found());
    size_t b = pos_;
    while (pos_ < text_.size() && identChar(text_[pos_])) ++pos_;
    return text_.substr(b, pos_ - b);
  }

  FunctionSchema parse(std::string* ns, std::string* name, std::string* overload, std::vector<SchemaArgument>* args,
                       std::vector<SchemaReturn>* rets) {
    *name = ident("operator name");
    if (accept("::")) {
      *ns = *name;
      *name = ident("operator name");
    }
    if (accept(".")) {
      skipSpace();
      size_t b = pos_;
      while (pos_ < text_.size() && identChar(text_[pos_])) ++pos_;
      if (pos_ == b) fail("expected overload name but " + found());
      *overload = text_.substr(b, pos_ - b);
    }
    expect("(");
    arguments(args);
    expect("->");
    returns(rets);
    if (!atEnd()) fail("unexpected text after the returns");
    return FunctionSchema();
  }

 private:
  void arguments(std::vector<SchemaArgument>* args) {
    if (accept(")")) return;
    bool kwarg_only = false;
    while (true) {
      if (accept("*")) {
        if (kwarg_only) fail("second '*'");
        kwarg_only = true;
        if (peekChar() != ',') fail("'*' must be followed by keyword-only arguments but " + found());
      } else {
        SchemaArgument a;
        a.kwarg_only = kwarg_only;
        type(&a.type, &a.alias);
        size_t at = pos_;
        a.name = ident("argument name");
        for (const auto& prev : *args)
          if (prev.name == a.name) {
            pos_ = at;
            fail("duplicate argument name '" + a.name + "'");
          }
        if (accept("=")) a.default_value = defaultValue(a.type);
        args->push_back(std::move(a));
      }
      skipSpace();
      if (accept(")")) return;
      expect(",");
    }
  }

  void type(SchemaType* t, std::optional<AliasAnnotation>* alias) {
    size_t at = (skipSpace(), pos_);
    std::string base = ident("a type");
    int b = 0;
    while (b < kNumBases && base != kBaseNames[b]) ++b;
    if (b == kNumBases) {
      pos_ = at;
      fail("unknown type '" + base + "'");
    }
    t->base = (SchemaType::Base)b;
    // An annotation follows the base name directly: `Tensor(a!)`; a '(' after
    // whitespace would be ambiguous with nothing in the grammar, so accept both.
    if (accept("(")) *alias = annotation();
    while (true) {
      if (accept("?")) {
        t->suffixes.push_back({true, -1});
      } else if (accept("[")) {
        SchemaType::Suffix s{false, -1};
        skipSpace();
        if (std::isdigit((unsigned char)peekChar())) {
          size_t b0 = pos_;
          while (pos_ < text_.size() && std::isdigit((unsigned char)text_[pos_])) ++pos_;
          s.size = std::stoll(text_.substr(b0, pos_ - b0));
        } else if (peekChar() != ']') {
          fail("expected a list size or ']' but " + found());
        }
        expect("]");
        t->suffixes.push_back(s);
      } else {
        return;
      }
    }
  }

  AliasAnnotation annotation() {
    AliasAnnotation a;
    a.before = aliasSet();
    a.is_write = accept("!");
    if (accept("->")) a.after = aliasSet();
    expect(")");
    return a;
  }

  std::vector<std::string> aliasSet() {
    std::vector<std::string> v;
    while (true) {
      if (accept("*")) v.push_back("*");
      else if (peekIdent()) v.push_back(ident("an alias set name"));
      else fail("expected an alias set name but " + found());
      if (!accept("|")) return v;
    }
  }

  // ---- defaults, normalised as PyTorch prints them

  static std::string formatFloat(double d) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", d);
    std::string s = buf;
    if (s.find_first_of(".en") == std::string::npos) s += ".";  // 2 -> "2." (n: inf/nan)
    return s;
  }

  // One scalar literal of a default; `elem` is the (element) type it must fit.
  std::string literal(const SchemaType& elem) {
    skipSpace();
    size_t at = pos_;
    char c = peekChar();
    using B = SchemaType::Base;
    if (c == '"' || c == '\'') {
      if (elem.base != B::Str) fail("a string default for an argument of type " + elem.str());
      char q = c;
      std::string v;
      ++pos_;
      while (pos_ < text_.size() && text_[pos_] != q) {
        if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) v += text_[pos_++];
        v += text_[pos_++];
      }
      if (pos_ >= text_.size()) {
        pos_ = at;
        fail("unterminated string default");
      }
      ++pos_;
      return "\"" + v + "\"";
    }
    if (std::isdigit((unsigned char)c) || c == '-' || c == '+' || c == '.') {
      size_t b = pos_;
      if (text_[pos_] == '-' || text_[pos_] == '+') ++pos_;
      bool is_float = false;
      while (pos_ < text_.size()) {
        char d = text_[pos_];
        if (std::isdigit((unsigned char)d)) ++pos_;
        else if (d == '.') is_float = true, ++pos_;
        else if ((d == 'e' || d == 'E') && pos_ > b) {
          is_float = true;
          ++pos_;
          if (pos_ < text_.size() && (text_[pos_] == '-' || text_[pos_] == '+')) ++pos_;
        } else break;
      }
      std::string num = text_.substr(b, pos_ - b);
      char* end = nullptr;
      if (elem.base != B::Int && elem.base != B::SymInt && elem.base != B::Float && elem.base != B::Scalar)
        pos_ = at, fail("a numeric default for an argument of type " + elem.str());
      if (is_float || elem.base == B::Float) {
        if (!is_float && elem.base != B::Float) pos_ = at, fail("invalid numeric default '" + num + "'");
        if ((elem.base == B::Int || elem.base == B::SymInt) && is_float)
          pos_ = at, fail("a floating-point default for an argument of type " + elem.str());
        double d = std::strtod(num.c_str(), &end);
        if (end != num.c_str() + num.size() || num.empty()) pos_ = at, fail("invalid numeric default '" + num + "'");
        return formatFloat(d);
      }
      long long v = std::strtoll(num.c_str(), &end, 10);
      if (end != num.c_str() + num.size() || num == "-" || num == "+")
        pos_ = at, fail("invalid numeric default '" + num + "'");
      return std::to_string(v);
    }
    if (peekIdent()) {
      std::string id = ident("a default value");
      if (id == "True" || id == "False") {
        if (elem.base != B::Bool && elem.base != B::Scalar) pos_ = at, fail("a bool default for an argument of type " + elem.str());
        return id;
      }
      // Enumerators such as contiguous_format or Mean stay as written
      // (PyTorch prints a MemoryFormat default as its integer value).
      if (elem.base == B::Tensor || elem.base == B::Float || elem.base == B::Bool || elem.base == B::Str)
        pos_ = at, fail("invalid default '" + id + "' for an argument of type " + elem.str());
      return id;
    }
    fail("expected a default value but " + found());
  }

  std::string defaultValue(const SchemaType& t) {
    skipSpace();
    size_t at = pos_;
    if (peekIdent()) {
      size_t save = pos_;
      std::string id = ident("a default value");
      if (id == "None") {
        if (!t.isOptional()) pos_ = at, fail("default None for argument of non-optional type " + t.str());
        return id;
      }
      pos_ = save;
    }
    SchemaType v = t.isOptional() ? t.inner() : t;
    if (peekChar() == '[') {
      if (!v.isList()) fail("a list default for an argument of type " + t.str());
      SchemaType elem = v.inner();
      expect("[");
      std::string s = "[";
      if (!accept("]")) {
        while (true) {
          s += literal(elem);
          if (accept("]")) break;
          expect(",");
          s += ", ";
        }
      }
      return s + "]";
    }
    // A bare scalar default for a list means "that value repeated" (int[2] stride=1).
    return literal(v.isList() ? v.inner() : v);
  }

  void returns(std::vector<SchemaReturn>* rets) {
    if (!accept("(")) {  // a bare return has no name: `-> Tensor`
      SchemaReturn r;
      type(&r.type, &r.alias);
      rets->push_back(std::move(r));
      return;
    }
    if (accept(")")) return;
    while (true) {
      SchemaReturn r;
      type(&r.type, &r.alias);
      if (peekIdent()) r.name = ident("a return name");
      rets->push_back(std::move(r));
      if (accept(")")) return;
      expect(",");
    }
  }

  const std::string& text_;
  size_t pos_ = 0;
};

}  // namespace

FunctionSchema FunctionSchema::parse(const std::string& text) {
  FunctionSchema s;
  SchemaParser(text).parse(&s.ns_, &s.name_, &s.overload_, &s.arguments_, &s.returns_);
  return s;
}

}  // namespace c10
