"""Issue 36 part 4: the Outputs panel says, per output, whether it is bit-exact with the runtime.

Contract: after Run Once the Outputs table has a "Bit-exact" column; an output computed only
by kernels that the differential record proves (relu of float32) reads "bit-exact with the
runtime" and is on screen, one behind a kernel the runtime refuses (linear.out: the portable
library has none, so tests/oracle/record.tsv has it `oracle-refused`) reads "not proven:
aten::linear.out (float32) …". At both screen sizes.
"""

from harness import table_headers, table_rows, visible_rect, wait_until, _retry
from scenario_support import BOTH_SIZES, bottom_tab, sizes, tab_table, timeout

SPEC = {"methods": [{
    "name": "forward", "inputs": ["x"], "outputs": ["y", "z"],
    "tensors": {"x": {"dtype": "float32", "sizes": [2, 3]}, "l": {"dtype": "float32", "sizes": [2, 2]},
                "y": {"dtype": "float32", "sizes": [2, 2]}, "z": {"dtype": "float32", "sizes": [2, 3]}},
    "constants": {"w": {"dtype": "float32", "sizes": [2, 3], "fill": 0.5},
                  "b": {"dtype": "float32", "sizes": [2], "fill": 1}},
    "nodes": [{"op": "aten::linear.out", "inputs": ["x", "w", "b"], "outputs": ["l"]},
              {"op": "aten::relu.out", "inputs": ["l"], "outputs": ["y"]},
              {"op": "aten::relu.out", "inputs": ["x"], "outputs": ["z"]}]}]}


@sizes(*BOTH_SIZES)
@timeout(90)
def scenario_outputs_say_which_are_bit_exact(ctx):
    """Issue 36 part 4: Run Once's Outputs table has a Bit-exact column: 'bit-exact with the runtime' for relu(x), 'not proven: aten::linear.out (float32) …' for relu(linear(x))."""
    program = ctx.synth_spec("linear-relu", SPEC, "--no-passes")
    app = ctx.open(program)
    app.menu("Run", "Run Once")
    bottom_tab(app, "Outputs")
    table = tab_table(app, "Outputs", "Outputs")
    rows = wait_until(lambda: table_rows(table) if len(table_rows(table)) == 2 else None, timeout=30,
                      what="the two outputs of Run Once")
    headers = table_headers(table)
    ctx.note(f"headers {headers!r}, rows {rows!r}")
    ctx.check("Bit-exact" in headers, f"the Outputs table's columns are {headers!r}")
    column = headers.index("Bit-exact")
    ctx.expect(rows[0][column].startswith("not proven: aten::linear.out (float32) the runtime refuses it"),
               f"output 0 (relu of linear.out) reads {rows[0][column]!r}")
    ctx.expect(rows[1][column] == "bit-exact with the runtime", f"output 1 (relu of the input) reads {rows[1][column]!r}")
    cell = _retry(lambda: table.queryTable().getAccessibleAt(1, column))
    seen = visible_rect(cell) if cell is not None else None
    ctx.note(f"the verdict of output 1 is seen at {seen}")
    ctx.expect(seen is not None and seen[2] >= 40, f"the verdict of output 1 is not on screen ({seen})")
    ctx.shot("bit-exact")
