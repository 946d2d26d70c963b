"""Rest patterns of the reference evaluator (SPEC §5.6): `..b` stands for as many leading
indices as the accesses that use it leave over; every such access must agree (E004)."""
from ir import Access, Red, Ref, Rest, RIdx, SlotIdx, clone, walk
from refnum import RefError


def rest_ranks(root, names, shape_of):
    ranks = {}
    for node in walk(root):
        if isinstance(node, Access):
            rests = [i for i in node.idx if isinstance(i, Rest) and i.name in names]
            if not rests:
                continue
            shape = shape_of(node.name)
            if shape is None:
                continue
            if len(rests) > 1:
                raise RefError("E004", "two rest patterns in one access", compile_time=True)
            k = len(shape) - (len(node.idx) - 1)
            if k < 0:
                raise RefError("E004", "rest pattern on too few axes", compile_time=True)
            r = rests[0].name
            if ranks.setdefault(r, k) != k:
                raise RefError("E004", f"rest `..{r}` has two ranks", compile_time=True)
    for r in names:
        if r not in ranks:
            raise RefError("E004", f"rank of `..{r}` cannot be determined", compile_time=True)
    return ranks


def gen_names(r, k):
    return [f"{r}#{n}" for n in range(k)]


def substitute(root, ranks):
    for node in walk(root):
        if isinstance(node, Access):
            new = []
            for i in node.idx:
                if isinstance(i, Rest) and i.name in ranks:
                    new.extend(Ref(n) for n in gen_names(i.name, ranks[i.name]))
                else:
                    new.append(i)
            node.idx = new


def expand_clause(c, shape_of):
    names = {s.name for s in c.slots if isinstance(s, Rest)}
    if not names:
        return c
    c = clone(c)
    ranks = rest_ranks([c.body, c.where, c.else_], names, shape_of)
    slots = []
    for s in c.slots:
        if isinstance(s, Rest):
            slots.extend(SlotIdx(n) for n in gen_names(s.name, ranks[s.name]))
        else:
            slots.append(s)
    c.slots = slots
    substitute([c.body, c.where, c.else_], ranks)
    return c


def expand_red(red, shape_of):
    red = clone(red)
    names = {i.name for i in red.idx if isinstance(i, Rest)}
    ranks = rest_ranks([red.body, red.where], names, shape_of)
    idx = []
    for i in red.idx:
        if isinstance(i, Rest):
            idx.extend(RIdx(n) for n in gen_names(i.name, ranks[i.name]))
        else:
            idx.append(i)
    red.idx = idx
    substitute([red.body, red.where], ranks)
    return red
