"""RemovableHandle: what every register_*_hook returns.

A handle knows the hook tables its hook was put in (by a weak reference, so a handle
kept by the user does not keep a module alive) and the unique id it was filed under;
remove() takes that id out of every table. Used as a context manager it removes the
hook on exit."""
import itertools
import weakref

__all__ = ["RemovableHandle"]

_ids = itertools.count()


def _ref(table):
    # OrderedDicts (the hook tables) take weak references; a plain dict cannot, and
    # is then held strongly.
    try:
        return weakref.ref(table)
    except TypeError:
        return lambda: table


class RemovableHandle:
    next_id = 0

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = _ref(hooks_dict)
        self.id = next(_ids)
        RemovableHandle.next_id = self.id + 1
        if extra_dict is None:
            extra = ()
        elif isinstance(extra_dict, (list, tuple)):
            extra = tuple(extra_dict)
        else:
            extra = (extra_dict,)
        self.extra_dict_ref = tuple(_ref(d) for d in extra)

    def remove(self):
        for ref in (self.hooks_dict_ref,) + self.extra_dict_ref:
            table = ref()
            if table is not None:
                table.pop(self.id, None)

    def __getstate__(self):
        return (self.hooks_dict_ref(), self.id, tuple(r() for r in self.extra_dict_ref))

    def __setstate__(self, state):
        table, self.id, extras = state
        self.hooks_dict_ref = _ref({} if table is None else table)
        self.extra_dict_ref = tuple(_ref(d) for d in extras if d is not None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
