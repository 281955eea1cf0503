// The backward graph: a Node per differentiable op call, Edges to the Nodes
// that produced its inputs. The engine runs Nodes in dependency order.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>
#include "c10/Tensor.h"

namespace torchlike::autograd {

using at::TensorBase;
using variable_list = std::vector<TensorBase>;

class Node;

struct Edge {
  std::shared_ptr<Node> function;
  uint32_t input_nr = 0;
  Edge() = default;
  Edge(std::shared_ptr<Node> f, uint32_t nr) : function(std::move(f)), input_nr(nr) {}
  bool is_valid() const { return function != nullptr; }
};
using edge_list = std::vector<Edge>;

// Shape and dtype of the forward input behind a next edge: the engine reduces
// a broadcast gradient back to this shape and casts it to this dtype.
struct InputMetadata {
  c10::DimVector sizes;
  at::ScalarType dtype = at::ScalarType::Undefined;
  bool defined = false;
};

// Hooks carry ids so Python handles can remove them.
template <class F>
struct HookList {
  std::vector<std::pair<int, F>> items;
  int next_id = 0;
  int add(F f) {
    items.emplace_back(next_id, std::move(f));
    return next_id++;
  }
  bool remove(int id) {
    for (auto it = items.begin(); it != items.end(); ++it)
      if (it->first == id) {
        items.erase(it);
        return true;
      }
    return false;
  }
};

// Hooks: a pre-hook sees (and may replace) the gradients flowing into a node,
// a post-hook sees its outputs and inputs.
using PreHook = std::function<variable_list(const variable_list& grad_outputs)>;
using PostHook = std::function<variable_list(const variable_list& grad_inputs, const variable_list& grad_outputs)>;

uint64_t next_sequence_nr();

class Node : public std::enable_shared_from_this<Node> {
 public:
  Node() : sequence_nr_(next_sequence_nr()) {}
  virtual ~Node() = default;
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  // grads: one per output of the forward op (undefined = zero). Returns one
  // gradient per next edge (undefined where not needed).
  virtual variable_list apply(variable_list&& grads) = 0;
  virtual std::string name() const = 0;
  // Frees saved tensors after a backward without retain_graph.
  virtual void release_variables() {}

  const edge_list& next_edges() const { return next_edges_; }
  edge_list& mutable_next_edges() { return next_edges_; }
  void set_next_edges(edge_list e) { next_edges_ = std::move(e); }
  void add_next_edge(Edge e) { next_edges_.push_back(std::move(e)); }
  size_t num_outputs() const { return next_edges_.size(); }
  // Number of forward outputs this node receives gradients for.
  uint32_t num_inputs() const { return num_inputs_; }
  void set_num_inputs(uint32_t n) { num_inputs_ = n; }
  uint64_t sequence_nr() const { return sequence_nr_; }
  // Whether gradient i (for next edge i) is needed: the edge leads somewhere.
  bool should_compute_output(size_t i) const { return i < next_edges_.size() && next_edges_[i].is_valid(); }

  HookList<PreHook>& pre_hooks() { return pre_hooks_; }
  HookList<PostHook>& post_hooks() { return post_hooks_; }
  // Hooks registered on a non-leaf output tensor: (output number, hook).
  using TensorHook = std::function<TensorBase(const TensorBase&)>;
  HookList<std::pair<uint32_t, TensorHook>>& tensor_pre_hooks() { return tensor_hooks_; }
  // retain_grad() hooks: run after all other tensor hooks (as in PyTorch), so
  // .grad of a non-leaf sees the gradient the tensor hooks produced.
  HookList<std::pair<uint32_t, TensorHook>>& retains_grad_hooks() { return retains_grad_hooks_; }
  std::vector<InputMetadata>& input_metadata() { return input_metadata_; }
  // Filled by anomaly mode: where the forward op was created.
  std::string& anomaly_trace() { return anomaly_trace_; }

  // Python object mirroring this node (borrowed), so grad_fn keeps one identity.
  void* pyobj = nullptr;

 protected:
  edge_list next_edges_;
  uint32_t num_inputs_ = 1;
  uint64_t sequence_nr_;
  HookList<PreHook> pre_hooks_;
  HookList<PostHook> post_hooks_;
  HookList<std::pair<uint32_t, TensorHook>> tensor_hooks_;
  HookList<std::pair<uint32_t, TensorHook>> retains_grad_hooks_;
  std::vector<InputMetadata> input_metadata_;
  std::string anomaly_trace_;
};

// A leaf's sink: adds incoming gradients into the leaf's .grad.
class AccumulateGrad : public Node {
 public:
  explicit AccumulateGrad(TensorBase variable);
  variable_list apply(variable_list&& grads) override;
  std::string name() const override { return "AccumulateGrad"; }
  const TensorBase& variable() const { return variable_; }

 private:
  // Strong: the graph keeps the leaf alive; the leaf points back only weakly.
  TensorBase variable_;
};

// The grad_fn of outputs of an op that has no derivative formula: its
// backward raises naming the op ("aten::floor_divide").
class NotImplementedNode : public Node {
 public:
  explicit NotImplementedNode(std::string op) : op_(std::move(op)) {}
  variable_list apply(variable_list&&) override;
  std::string name() const override { return "NotImplemented"; }

 private:
  std::string op_;
};

// Generated backward of an op with a Tensor[] argument: whether any of the
// `n` edges from `first` on (one per list element) needs a gradient.
inline bool should_compute_any(const Node& fn, size_t first, size_t n) {
  for (size_t i = first; i < first + n; ++i)
    if (fn.should_compute_output(i)) return true;
  return false;
}

// A Tensor[] argument's formula must give one gradient per element.
void check_list_gradients(const char* node, const char* arg, size_t got, size_t want);

}  // namespace torchlike::autograd
