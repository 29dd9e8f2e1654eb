"""capture.code_decode against the ``bytecode`` package, object by object.

Oracle: ``list(Bytecode.from_code(code))`` and the translator's former ``dis``-based handler
table (kept below as ``_handler_table_via_dis``), for every code object (nested ones included)
of a fixed sample of this repository's modules (80 files) and of the standard library's (60
files), compiled from source (nothing is imported), plus synthetic sources for what a sample may
lack (EXTENDED_ARG, long jumps, every argument kind of each interpreter's opcodes).
``CODE_DECODE_FULL_CORPUS=1`` checks every file of both instead (~95,000 code objects, minutes:
too slow for every run)."""
import dis
import glob
import os
import random
import sys
import sysconfig
import types
import warnings

import pytest
from bytecode import Bytecode, Instr, Label, TryBegin, TryEnd
from bytecode.instr import UNSET, CellVar, FreeVar, InstrLocation

from capture import code_decode, translator

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
pytestmark = pytest.mark.skipif(not code_decode.ENABLED,
                                reason="code_decode is not verified for this interpreter/bytecode release")


# -- the oracle ------------------------------------------------------------------------------------

def _handler_table_via_dis(code, insts):
    """The translator's handler table before code_decode (verbatim but for the cache)."""
    parse = getattr(dis, "_parse_exception_table", None)
    real = [i for i in dis.get_instructions(code) if i.opname not in ("EXTENDED_ARG", "CACHE")]
    abstract = [ins for ins in insts if isinstance(ins, Instr)]
    entries = parse(code) if parse is not None else None
    matched = entries is not None and len(real) == len(abstract) and all(
        a.name == r.opname for a, r in zip(abstract, real))
    hit = [None] * len(insts)
    if matched:
        offset_of = {id(a): r.offset for a, r in zip(abstract, real)}
        current = None
        for i, ins in enumerate(insts):
            if isinstance(ins, TryBegin):
                current = ins
            elif isinstance(ins, TryEnd):
                current = None
            elif isinstance(ins, Instr) and current is not None:
                off = offset_of[id(ins)]
                for e in entries:
                    if e.start <= off < e.end:
                        hit[i] = (current.target, e.depth, bool(e.lasti))
                        break
    return hit


def _same_value(a, b, pos_a, pos_b, where):
    """a (package) and b (decoder) are the same argument: labels by position, constants by identity."""
    assert type(a) is type(b), (where, a, b)
    if isinstance(a, Label):
        assert pos_a[id(a)] == pos_b[id(b)], (where, "label position")
    elif isinstance(a, tuple):
        assert len(a) == len(b), where
        for x, y in zip(a, b):
            _same_value(x, y, pos_a, pos_b, where)
    elif isinstance(a, (CellVar, FreeVar)):
        assert a.name == b.name and type(a.name) is type(b.name), where
    elif isinstance(a, (str, int)) and not isinstance(a, bool) and a is not UNSET:
        assert a == b, (where, a, b)
    else:  # constants (the co_consts objects themselves), enum members, bools, UNSET, None
        assert a is b, (where, a, b)


def assert_same_instructions(code, want, got):
    where = f"{code.co_filename}:{code.co_firstlineno} {code.co_qualname}"
    assert len(want) == len(got), (where, len(want), len(got))
    pos_a = {id(x): i for i, x in enumerate(want)}
    pos_b = {id(x): i for i, x in enumerate(got)}
    prev = None
    for i, (a, b) in enumerate(zip(want, got)):
        at = (where, i, a)
        assert type(a) is type(b), at
        if isinstance(a, Instr):
            assert (a._name, a._opcode, a._is_jump) == (b._name, b._opcode, b._is_jump), at
            _same_value(a._arg, b._arg, pos_a, pos_b, at)
            la, lb = a._location, b._location
            assert type(la) is type(lb) is InstrLocation, at
            assert (la.lineno, la.end_lineno, la.col_offset, la.end_col_offset) == \
                   (lb.lineno, lb.end_lineno, lb.col_offset, lb.end_col_offset), at
            assert a.lineno == b.lineno, at
            if prev is not None:  # InstrLocation objects shared exactly where the package shares them
                assert (prev[0]._location is la) == (prev[1]._location is lb), at
            prev = (a, b)
        elif isinstance(a, TryBegin):
            assert pos_a[id(a.target)] == pos_b[id(b.target)], at
            assert type(a.push_lasti) is type(b.push_lasti) and a.push_lasti == b.push_lasti, at
            _same_value(a.stack_depth, b.stack_depth, pos_a, pos_b, at)
        elif isinstance(a, TryEnd):
            assert pos_a[id(a.entry)] == pos_b[id(b.entry)], at
        else:
            assert isinstance(a, Label), at


def assert_same_tables(code, want_insts, want, got_insts, got):
    where = f"{code.co_filename}:{code.co_firstlineno} {code.co_qualname}"
    assert len(want) == len(got), where
    pos_a = {id(x): i for i, x in enumerate(want_insts)}
    pos_b = {id(x): i for i, x in enumerate(got_insts)}
    for i, (a, b) in enumerate(zip(want, got)):
        if a is None:
            assert b is None, (where, i, b)
            continue
        assert b is not None, (where, i, a)
        assert pos_a[id(a[0])] == pos_b[id(b[0])], (where, i)
        assert type(a[1]) is type(b[1]) and a[1] == b[1], (where, i)
        assert type(a[2]) is type(b[2]) and a[2] == b[2], (where, i)


PACKAGE_ERRORS = []  # code objects Bytecode.from_code raises on


def check_code(code):
    """Decoder == package for one code object: its instructions and both handler-table paths
    (the decoder's own offsets, and the co_code scan used for lists the decoder did not build)."""
    try:
        want = list(Bytecode.from_code(code))
    except Exception:
        # the package cannot decode it (3.13's test_type_params has such code objects): the
        # decoder must fall back, so the caller gets the package's own error as before
        assert code_decode.decode(code) is None, code.co_qualname
        PACKAGE_ERRORS.append(f"{code.co_filename}:{code.co_qualname}")
        return
    decoded = code_decode.decode(code)
    assert decoded is not None, f"decoder fell back on {code.co_qualname} of {code.co_filename}"
    got, offsets, entries = decoded
    assert_same_instructions(code, want, got)
    want_table = _handler_table_via_dis(code, want)
    assert_same_tables(code, want, want_table, got, code_decode.handler_table(got, offsets, entries))
    generic = code_decode.instruction_offsets(code, want)
    assert generic is not None or not any(want_table)
    if generic is not None:
        table = code_decode.handler_table(want, generic, code_decode.exception_entries(code))
        assert_same_tables(code, want, want_table, want, table)


def all_codes(code):
    yield code
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            yield from all_codes(c)


def compiled(path):
    try:
        with open(path, encoding="utf-8") as f:
            source = f.read()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes in old test sources
            return compile(source, path, "exec", dont_inherit=True)
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return None  # test data with deliberate syntax errors, other encodings


def check_files(paths):
    n = 0
    for path in paths:
        code = compiled(path)
        if code is None:
            continue
        for c in all_codes(code):
            check_code(c)
            n += 1
    return n


def repo_files():
    out = []
    for top in ("capture", "graph", "runtime", "codegen", "tests", "bench", "tools", "examples"):
        out += glob.glob(os.path.join(ROOT, top, "**", "*.py"), recursive=True)
    return sorted(out)


def stdlib_files():
    lib = sysconfig.get_paths()["stdlib"]
    out = [p for p in glob.glob(os.path.join(lib, "**", "*.py"), recursive=True)
           if "site-packages" not in p and "lib2to3/tests/data" not in p]
    return sorted(out)


# -- synthetic sources for shapes a corpus sample may miss -------------------------------------

def _big_function_source():
    """>255 constants, names and locals (EXTENDED_ARG on their arguments) and jumps over more
    than 255 code units (EXTENDED_ARG on jumps), inside try/except/finally and a loop."""
    body = ["def big(x):", "    total = 0", "    try:"]
    for k in range(300):
        body.append(f"        v{k} = x.attr{k} + {k}.5")
        body.append(f"        if v{k} > {k}: total += v{k}")
    body += ["    except (KeyError, ValueError) as e:", "        total = str(e)",
             "    finally:", "        total = -total if total else total",
             "    for i in range(3):", "        if i:", "            continue"]
    body += [f"        total += v{k}" for k in range(200)]
    body += ["    return total"]
    return "\n".join(body) + "\n"


SYNTHETIC = {
    "common": '''
import contextlib
from os.path import *
class Meta(type):
    x = 1
    def f(self):
        x = 2
        class Inner:
            y = x
            def g(self): return __class__, x
        return Inner
def unary(a, *b):
    return +a, (*b,), [*b, a], {**{}, 1: a}, print(a, sep="")
async def agen2(xs):
    async for x in xs:
        yield x
    return
class A(Base):
    def m(self, *a, **k):
        return super().m(*a, **k) + super(A, self).n
    @property
    def p(self): return self.__p
def cells(a, b=1, *c, d, **e):
    x = y = 0
    def inner():
        nonlocal x
        x += a
        return lambda: (x, y, a, d)
    del b
    return inner, [z for z in c if z], {k: v for k, v in e.items()}, (w for w in c)
async def agen(n):
    async with ctx() as c:
        async for i in aiter(n):
            yield await i
    try:
        pass
    finally:
        await c
def errors(v):
    try:
        try:
            raise ValueError(v) from None
        except* (TypeError, ValueError) as g:
            pass
    except BaseException:
        raise
    else:
        return 1
    finally:
        print("done")
    with open(v) as f, contextlib.suppress(OSError):
        return f.read()
def matching(cmd):
    match cmd:
        case {"x": int(x), **rest} if x > 0: return x, rest
        case [1, *tail]: return tail
        case Point(x=0, y=yy) | Point(x=yy, y=0): return yy
        case str() as s: return f"{s!r:>{len(s)}} {s!a} {s!s}"
        case _: return None
def comparisons(a, b):
    return (a < b, a <= b, a == b, a != b, a > b, a >= b, a is b, a in b, not a, -a, ~a,
            a @ b, a ** b, a // b, a % b, a << b, a >> b, a & b, a | b, a ^ b)
def walrus(xs):
    if (n := len(xs)) > 1:
        xs[1:n] = xs[:n - 1]
        del xs[0], xs[::2]
    global G
    G = n
    from os import path as p
    return p
''',
    "py312": '''
type Alias[T] = list[T]
def generic[T: int, *Ts, **P](x: T) -> T:
    return x
class C[T](Base[T]):
    def f(self): return super().f()
class D:
    x = int
    type A = x
    def m[T](self, a: x) -> T: return a
def g[U](x):
    class E:
        w = U
    return E
''',
}


# -- tests -----------------------------------------------------------------------------------------

FULL = os.environ.get("CODE_DECODE_FULL_CORPUS") == "1"


def _sample(files, k):
    """Every file with CODE_DECODE_FULL_CORPUS=1, else a fixed sample of k (one seed per
    interpreter version, so the three interpreters cover different files)."""
    if FULL or len(files) <= k:
        return files
    return random.Random(sys.version_info[1]).sample(files, k)


def test_this_repository():
    files = repo_files()
    assert len(files) > 300
    files = _sample(files, 80)
    n = check_files(files)
    print(f"\n{n} code objects of this repository from {len(files)} files")
    assert n > 1000


def test_standard_library():
    files = stdlib_files()
    assert len(files) > 500
    files = _sample(files, 60)
    del PACKAGE_ERRORS[:]
    n = check_files(files)
    print(f"\n{n} standard-library code objects from {len(files)} files; the package itself "
          f"fails on {len(PACKAGE_ERRORS)} (the decoder falls back there): {PACKAGE_ERRORS[:5]}")
    assert n > 500


#: instructions whose arguments the decoder builds specially, per version: the synthetic sources
#: must contain every one of them (so each argument kind is compared at least once)
EXPECTED_OPCODES = {
    (3, 11): {"LOAD_GLOBAL", "COMPARE_OP", "BINARY_OP", "MAKE_CELL", "LOAD_CLOSURE", "LOAD_DEREF",
              "LOAD_CLASSDEREF", "STORE_DEREF", "DELETE_FAST", "LOAD_CONST", "LOAD_ATTR", "FOR_ITER",
              "JUMP_BACKWARD", "POP_JUMP_FORWARD_IF_FALSE", "SEND", "FORMAT_VALUE", "IMPORT_STAR",
              "CHECK_EG_MATCH", "PREP_RERAISE_STAR", "EXTENDED_ARG", "KW_NAMES"},
    (3, 12): {"LOAD_GLOBAL", "LOAD_ATTR", "LOAD_SUPER_ATTR", "CALL_INTRINSIC_1", "CALL_INTRINSIC_2",
              "COMPARE_OP", "BINARY_OP", "LOAD_FAST_AND_CLEAR", "LOAD_FAST_CHECK", "MAKE_CELL",
              "LOAD_FROM_DICT_OR_DEREF", "RETURN_CONST", "END_SEND", "JUMP_BACKWARD", "KW_NAMES",
              "EXTENDED_ARG", "LOAD_FROM_DICT_OR_GLOBALS"},
    (3, 13): {"LOAD_GLOBAL", "LOAD_ATTR", "LOAD_SUPER_ATTR", "CALL_INTRINSIC_1", "CALL_INTRINSIC_2",
              "COMPARE_OP", "BINARY_OP", "LOAD_FAST_LOAD_FAST", "STORE_FAST_LOAD_FAST",
              "STORE_FAST_STORE_FAST", "CONVERT_VALUE", "FORMAT_SIMPLE", "FORMAT_WITH_SPEC",
              "MAKE_CELL", "CALL_KW", "LOAD_FROM_DICT_OR_DEREF", "EXTENDED_ARG", "TO_BOOL",
              "LOAD_FAST_AND_CLEAR", "SET_FUNCTION_ATTRIBUTE"},
}


def test_synthetic_sources():
    sources = [SYNTHETIC["common"], _big_function_source()]
    if sys.version_info >= (3, 12):
        sources.append(SYNTHETIC["py312"])
    seen = set()
    n = 0
    for k, source in enumerate(sources):
        for c in all_codes(compile(source, f"<synthetic {k}>", "exec")):
            check_code(c)
            seen.update(i.opname for i in dis.get_instructions(c))
            n += 1
    missing = EXPECTED_OPCODES[sys.version_info[:2]] - seen
    assert not missing, f"the synthetic sources lack {sorted(missing)}"
    assert n > 10


def test_extended_args_and_long_jumps():
    code = compile(_big_function_source(), "<big>", "exec")
    big = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    assert any(i.opname == "EXTENDED_ARG" for i in dis.get_instructions(big))
    check_code(big)
    # the instruction objects of both paths assemble into the same code object
    assert Bytecode(code_decode.decode(big)[0]).to_code() == Bytecode(list(Bytecode.from_code(big))).to_code()


def test_translator_uses_the_decoder_and_caches_its_table():
    def f(a):
        try:
            return a[0]
        except IndexError:
            return None
    code = f.__code__
    translator._CODE_CACHE.pop(code, None)
    translator._HANDLERS.pop(code, None)
    translator._DECODED.pop(code, None)
    insts = translator._instructions(code)[0]
    assert translator._DECODED[code][0] is insts
    assert_same_instructions(code, list(Bytecode.from_code(code)), insts)
    table = translator._handler_table(code, insts)
    assert any(table)
    assert_same_tables(code, insts, _handler_table_via_dis(code, insts), insts, table)


def _with_pair_replaced(op):
    """A code object whose ``x = 1`` (LOAD_CONST, STORE_FAST: two code units without caches) is
    replaced by EXTENDED_ARG 1 and ``op`` (positions and length unchanged)."""
    def g():
        x = 1
        return x
    code = g.__code__
    raw = bytearray(code.co_code)
    at = next(i for i in range(0, len(raw), 2) if dis.opname[raw[i]] == "LOAD_CONST")
    assert dis.opname[raw[at + 2]] == "STORE_FAST"
    raw[at:at + 4] = bytes([dis.opmap["EXTENDED_ARG"], 1, dis.opmap[op], 0])
    return code.replace(co_code=bytes(raw))


def test_unsupported_code_falls_back_to_the_package():
    """An EXTENDED_ARG before an argument-less instruction other than NOP (never emitted by
    CPython) is not decoded: decode says None, and the translator's list comes from the package
    (which refuses it too: nothing silently different)."""
    patched = _with_pair_replaced("POP_TOP")
    assert len(list(patched.co_positions())) == len(patched.co_code) // 2
    assert code_decode.decode(patched) is None
    with pytest.raises(ValueError):
        Bytecode.from_code(patched)
    translator._DECODED.pop(patched, None)
    with pytest.raises(ValueError):
        translator._instructions(patched)
    assert patched not in translator._DECODED


def test_code_without_positions_falls_back_to_the_package():
    def g(x):
        return x
    stripped = g.__code__.replace(co_linetable=b"")
    assert code_decode.decode(stripped) is None
    translator._CODE_CACHE.pop(stripped, None)
    assert [type(i) for i in translator._instructions(stripped)[0]] == \
           [type(i) for i in Bytecode.from_code(stripped)]


def test_truncated_exception_table_falls_back():
    def f(a):
        try:
            return a[0]
        except IndexError:
            return None
    code = f.__code__
    cut = code.replace(co_exceptiontable=code.co_exceptiontable[:-1])
    assert code_decode.decode(cut) is None
    assert code_decode.exception_entries(cut) == [
        (e.start, e.end, e.depth, bool(e.lasti)) for e in dis._parse_exception_table(cut)]
    assert len(code_decode.exception_entries(cut)) == len(code_decode.exception_entries(code)) - 1


def test_extended_arg_before_nop():
    patched = _with_pair_replaced("NOP")
    check_code(patched)
    nop = next(i for i in code_decode.decode(patched)[0] if isinstance(i, Instr) and i.name == "NOP")
    assert nop.arg is UNSET


def test_disabled_decoder_falls_back(monkeypatch):
    monkeypatch.setattr(code_decode, "ENABLED", False)

    def h(x):
        return x + 1
    assert code_decode.decode(h.__code__) is None
    translator._CODE_CACHE.pop(h.__code__, None)
    translator._DECODED.pop(h.__code__, None)
    insts = translator._instructions(h.__code__)[0]
    assert h.__code__ not in translator._DECODED
    assert_same_instructions(h.__code__, list(Bytecode.from_code(h.__code__)), insts)
    # the handler table's generic path without the decoder's tables goes through dis
    assert code_decode.instruction_offsets(h.__code__, insts) is not None
