#include "Engine.h"

#include <optional>
#include <queue>
#include <unordered_map>
#include <unordered_set>
#include "c10/DispatchKey.h"
#include "c10/ProfilerHooks.h"
#include "ops/_to_copy.h"
#include "ops/add.h"
#include "ops/any.h"
#include "ops/isnan.h"
#include "ops/sum_to_size.h"

namespace torchlike::autograd {

static bool g_anomaly_check_nan = true;
bool anomaly_check_nan() { return g_anomaly_check_nan; }
void set_anomaly_check_nan(bool v) { g_anomaly_check_nan = v; }


namespace {

// Gradients arriving at a node, one slot per forward output; summed on arrival.
struct InputBuffer {
  variable_list grads;
  void add(size_t pos, TensorBase g) {
    if (!g.defined()) return;
    if (grads.size() <= pos) grads.resize(pos + 1);
    TensorBase& cur = grads[pos];
    cur = cur.defined() ? at::_ops::add(cur, g, 1) : std::move(g);
  }
};

struct ByNewest {
  bool operator()(Node* a, Node* b) const { return a->sequence_nr() < b->sequence_nr(); }
};

// A gradient must match its forward input: sum away broadcast dims and cast
// to the input dtype (PyTorch's validate_outputs).
TensorBase conform(TensorBase g, const InputMetadata& md, Node& fn, size_t i) {
  if (!g.defined() || !md.defined) return g;
  if (!g.sizes().equals(md.sizes)) {
    bool expandable = g.dim() >= (int64_t)md.sizes.size();
    for (size_t d = 0; expandable && d < md.sizes.size(); ++d) {
      int64_t want = md.sizes[md.sizes.size() - 1 - d], have = g.sizes()[g.dim() - 1 - d];
      expandable = want == have || want == 1;
    }
    TL_CHECK(expandable, "Function ", fn.name(), " returned an invalid gradient at index ", i, " - got ", g.sizes(),
             " but expected shape compatible with ", md.sizes.ref());
    g = at::_ops::sum_to_size(g, md.sizes);
  }
  if (g.scalar_type() != md.dtype)
    g = at::_ops::_to_copy(g, md.dtype, std::nullopt, std::nullopt, std::nullopt, false, std::nullopt);
  return g;
}

// Restores the thread's autocast keys when the backward pass ends (or throws).
struct AutocastOffForBackward {
  c10::DispatchKeySet saved;
  AutocastOffForBackward() {
    auto& tls = c10::tlsLocalDispatchKeySet();
    const auto autocast_keys = c10::DispatchKeySet::functionality(c10::Functionality::Autocast);
    saved = tls.included & autocast_keys;
    tls.included = tls.included - autocast_keys;
  }
  ~AutocastOffForBackward() {
    auto& tls = c10::tlsLocalDispatchKeySet();
    tls.included = tls.included | saved;
  }
  AutocastOffForBackward(const AutocastOffForBackward&) = delete;
  AutocastOffForBackward& operator=(const AutocastOffForBackward&) = delete;
};

}  // namespace

variable_list run_backward(const variable_list& roots, const variable_list& grad_roots, bool keep_graph,
                           bool create_graph, const variable_list& inputs, bool allow_unused,
                           bool accumulate_into_inputs) {
  TL_CHECK(roots.size() == grad_roots.size(), "backward: got ", roots.size(), " tensors but ", grad_roots.size(),
           " gradients");
  AutoGradMode mode(create_graph);
  // Backward runs outside autocast even when .backward() is called inside a
  // region: each gradient is computed in the dtypes its forward saw. The keys
  // are taken out of the included set (not excluded), so a custom Function's
  // backward may turn autocast back on for itself (custom_bwd).
  AutocastOffForBackward no_autocast;

  // Root edges and their seed gradients.
  std::vector<std::pair<Edge, TensorBase>> seeds;
  for (size_t i = 0; i < roots.size(); ++i) {
    const TensorBase& r = roots[i];
    TL_CHECK(r.defined() && requires_grad(r),
             "element ", i, " of tensors does not require grad and does not have a grad_fn");
    const TensorBase& g = grad_roots[i];
    TL_CHECK(g.defined(), "backward: no gradient given for element ", i);
    TL_CHECK(g.sizes().equals(r.sizes()), "Mismatch in shape: grad_output[", i, "] has a shape of ", g.sizes(),
             " and output[", i, "] has a shape of ", r.sizes(), ".");
    seeds.emplace_back(gradient_edge(r), g);
  }

  // Where to capture gradients (autograd.grad / backward(inputs=...)).
  std::unordered_map<Node*, std::vector<std::pair<uint32_t, size_t>>> captures;
  std::vector<Edge> input_edges;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorBase& t = inputs[i];
    TL_CHECK(t.defined() && requires_grad(t), "One of the differentiated Tensors does not require grad");
    Edge e = gradient_edge(t);
    input_edges.push_back(e);
    if (e.function) captures[e.function.get()].emplace_back(e.input_nr, i);
  }
  const bool restrict_to_inputs = !inputs.empty();

  // Discover the graph and which nodes lead to a requested input.
  std::unordered_map<Node*, std::shared_ptr<Node>> owner;
  std::vector<Node*> order;  // DFS discovery order
  {
    std::vector<Node*> stack;
    for (auto& s : seeds) {
      Node* n = s.first.function.get();
      if (n && !owner.count(n)) {
        owner[n] = s.first.function;
        stack.push_back(n);
      }
    }
    while (!stack.empty()) {
      Node* n = stack.back();
      stack.pop_back();
      order.push_back(n);
      for (const Edge& e : n->next_edges()) {
        Node* m = e.function.get();
        if (m && !owner.count(m)) {
          owner[m] = e.function;
          stack.push_back(m);
        }
      }
    }
  }
  std::unordered_set<Node*> needed;
  if (restrict_to_inputs) {
    // Fixed point: a node is needed if it is captured or feeds a needed node.
    bool changed = true;
    for (auto& c : captures) needed.insert(c.first);
    while (changed) {
      changed = false;
      for (Node* n : order) {
        if (needed.count(n)) continue;
        for (const Edge& e : n->next_edges())
          if (e.function && needed.count(e.function.get())) {
            needed.insert(n);
            changed = true;
            break;
          }
      }
    }
  }
  auto is_needed = [&](Node* n) { return !restrict_to_inputs || needed.count(n) > 0; };
  auto runs = [&](Node* n) {
    // With inputs=, only the inputs' own accumulators run (and only for backward).
    if (!is_needed(n)) return false;
    if (restrict_to_inputs && dynamic_cast<AccumulateGrad*>(n)) return accumulate_into_inputs && captures.count(n);
    return true;
  };

  std::unordered_map<Node*, int> deps;
  for (Node* n : order) {
    if (!is_needed(n)) continue;
    for (const Edge& e : n->next_edges())
      if (e.function && is_needed(e.function.get())) deps[e.function.get()]++;
  }

  std::unordered_map<Node*, InputBuffer> buffers;
  std::priority_queue<Node*, std::vector<Node*>, ByNewest> ready;
  for (auto& s : seeds) {
    if (!s.first.function) continue;
    buffers[s.first.function.get()].add(s.first.input_nr, s.second);
  }
  for (auto& s : seeds) {
    Node* n = s.first.function.get();
    if (n && deps[n] == 0 && is_needed(n)) {
      deps[n] = -1;  // queued
      ready.push(n);
    }
  }

  variable_list results(inputs.size());
  while (!ready.empty()) {
    Node* n = ready.top();
    ready.pop();
    std::shared_ptr<Node> keep = owner[n];
    variable_list in = std::move(buffers[n].grads);
    buffers.erase(n);
    in.resize(std::max<size_t>(in.size(), n->num_inputs()));
    // PyTorch's order: tensor hooks on this node's outputs (a leaf's hooks
    // for its AccumulateGrad), then retain_grad hooks, then capture for
    // autograd.grad, then the node's own pre-hooks (only if it runs).
    auto run_tensor_hooks = [&](auto& list) {
      for (auto& h : list.items) {
        uint32_t k = h.second.first;
        if (k < in.size() && in[k].defined()) {
          TensorBase r = h.second.second(in[k]);
          if (r.defined()) in[k] = r;
        }
      }
    };
    run_tensor_hooks(n->tensor_pre_hooks());
    if (auto* acc = dynamic_cast<AccumulateGrad*>(n)) {
      if (AutogradMeta* vm = get_autograd_meta(acc->variable()))
        for (auto& h : vm->leaf_hooks.items)
          if (!in.empty() && in[0].defined()) {
            TensorBase r = h.second(in[0]);
            if (r.defined()) in[0] = r;
          }
    }
    run_tensor_hooks(n->retains_grad_hooks());
    auto cap = captures.find(n);
    if (cap != captures.end() && !accumulate_into_inputs) {
      for (auto& c : cap->second)
        if (c.first < in.size() && in[c.first].defined())
          results[c.second] = results[c.second].defined() ? at::_ops::add(results[c.second], in[c.first], 1) : in[c.first];
    }
    if (!runs(n)) continue;
    // Profiler ranges, named as PyTorch's: the node's whole evaluation (hooks,
    // apply, routing its outputs) and, inside it, its apply.
    std::optional<c10::profiler::RangeGuard> eval_range;
    std::string prof_name;
    if (TL_UNLIKELY(c10::profiler::enabled())) {
      prof_name = n->name();
      if (prof_name == "AccumulateGrad") prof_name = "torch::autograd::AccumulateGrad";
      eval_range.emplace("autograd::engine::evaluate_function: " + prof_name, c10::profiler::EventKind::Backward,
                         (int64_t)n->sequence_nr());
    }
    for (auto& h : n->pre_hooks().items) {
      variable_list r = h.second(in);
      if (!r.empty()) in = std::move(r);
    }
    variable_list out;
    try {
      // Post hooks see the node's inputs, so `in` is kept for them; without
      // any it is handed over, so a gradient buffer nothing else holds
      // reaches AccumulateGrad with no extra reference and is stolen there
      // instead of cloned.
      std::optional<c10::profiler::RangeGuard> apply_range;
      if (eval_range) {
        apply_range.emplace(prof_name, c10::profiler::EventKind::Backward, (int64_t)n->sequence_nr());
        if (apply_range->recordsInputs())
          for (const TensorBase& g : in) apply_range->addInput(g);
      }
      out = n->post_hooks().items.empty() ? n->apply(std::move(in)) : n->apply(variable_list(in));
    } catch (const c10::Error& e) {
      if (anomaly_enabled() && !n->anomaly_trace().empty())
        c10::throw_error(e.kind(), std::string(e.what()) + "\n\nThe forward call that created " + n->name() +
                                       " was:\n" + n->anomaly_trace());
      throw;
    }
    for (auto& h : n->post_hooks().items) {
      variable_list r = h.second(out, in);
      if (!r.empty()) out = std::move(r);
    }
    if (!keep_graph) n->release_variables();
    const edge_list& edges = n->next_edges();
    TL_CHECK(out.size() <= edges.size() || edges.empty(), "Function ", n->name(), " returned ", out.size(),
             " gradients but expected ", edges.size());
    for (size_t i = 0; i < edges.size() && i < out.size(); ++i) {
      const Edge& e = edges[i];
      if (!e.function || !is_needed(e.function.get())) continue;
      TensorBase g = out[i];
      if (g.defined() && i < n->input_metadata().size()) g = conform(g, n->input_metadata()[i], *n, i);
      if (anomaly_enabled() && anomaly_check_nan() && g.defined() && c10::isFloatingType(g.scalar_type()) &&
          c10::item(at::_ops::any(at::_ops::isnan(g))).toBool()) {
        TL_ERROR("Function '", n->name(), "' returned nan values in its ", i, "th output.",
                 n->anomaly_trace().empty() ? "" : "\n\nThe forward call that created it was:\n" + n->anomaly_trace());
      }
      Node* m = e.function.get();
      buffers[m].add(e.input_nr, std::move(g));
      if (--deps[m] == 0) {
        deps[m] = -1;
        ready.push(m);
      }
    }
  }

  if (restrict_to_inputs && !accumulate_into_inputs) {
    for (size_t i = 0; i < inputs.size(); ++i)
      TL_CHECK(results[i].defined() || allow_unused,
               "One of the differentiated Tensors appears to not have been used in the graph. Set allow_unused=True "
               "if this is the desired behavior.");
  }
  return results;
}

}  // namespace torchlike::autograd
