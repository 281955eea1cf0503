"""Removable handles for hooks on tensors and graph nodes."""


class RemovableHandle:
    def __init__(self, remove_fn):
        self._remove_fn = remove_fn

    def remove(self):
        if self._remove_fn is not None:
            self._remove_fn()
            self._remove_fn = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()



def _node_handle(node, hook_id, pre):
    """The handle _C._Node.register_hook / register_prehook return."""
    return RemovableHandle(lambda: node._remove_hook(hook_id, pre))
