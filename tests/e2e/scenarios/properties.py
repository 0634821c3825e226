"""Issue 24 item 1: the Properties panel names the right values."""

from harness import wait_until
from scenario_support import (SAMPLES, VALUE_REF, instruction_count, instruction_values, properties_rows, property_value,
                              select_instruction, tensor_type_text, timeout, wait_title)


def io_rows(rows):
    """The Value texts of the child rows under "Inputs" and "Outputs" (flattened
    tree: children have an empty Property column)."""
    out, section = [], None
    for key, value, *_ in rows:
        if key in ("Inputs", "Outputs"):
            section = key
            continue
        if key != "":
            section = None
            continue
        if section:
            out.append((section, value))
    return out


def check_instructions(ctx, app, dump, plan: int, instructions, label: str) -> None:
    for k in instructions:
        select_instruction(app, k)
        rows = properties_rows(app)
        args, referred, tensors, kind = instruction_values(dump, k, plan)
        where = f"{label} instruction #{k} ({kind})"
        # No text of the panel names a value the instruction does not refer to.
        for key, value, *_ in rows:
            for ref in VALUE_REF.findall(value):
                ctx.expect(int(ref) in referred,
                           f"{where}: Properties row {key or '(child)'!r} reads {value!r}: %{ref} is not an argument "
                           f"(args {args[:12]})")
        shown = set()
        for section, text in io_rows(rows):
            refs = VALUE_REF.findall(text)
            if not ctx.expect(text.startswith("%") and refs, f"{where}: {section} row {text!r} does not start with "
                                                           f"its value %N"):
                continue
            v = int(refs[0])
            shown.add(v)
            expected_type = tensor_type_text(dump, v, plan)
            if expected_type:
                ctx.expect(expected_type in text, f"{where}: {section} row {text!r}: %{v} is {expected_type}")
        if kind in ("KernelCall", "DelegateCall"):
            missing = sorted(tensors - shown)
            ctx.expect(not missing, f"{where}: Inputs/Outputs do not list tensor argument(s) "
                                    f"{', '.join('%' + str(m) for m in missing[:8])} (shown: {sorted(shown)[:12]})")
        if len(ctx.problems) > 12:
            break


def shown_plan(ctx, app, dump) -> int:
    """The execution plan the window shows (Properties' Method with nothing selected)."""
    app.key("Escape")
    name = wait_until(lambda: property_value(app, "Method"), timeout=5, what="Properties to name the method")
    names = [p["name"] for p in dump["execution_plan"]]
    ctx.check(name in names, f"Properties names method {name!r}; the program has {names[:5]}")
    return names.index(name)


@timeout(150)
def scenario_properties_texts(ctx):
    """Item 1: for every instruction of the demo, the Properties Inputs/Outputs name its own argument values (dump --json)."""
    demo = ctx.demo()
    dump = ctx.dump(demo)
    app = ctx.open(demo)
    plan = shown_plan(ctx, app, dump)
    n = instruction_count(dump, plan)
    ctx.check(n > 0, "the demo has no instructions")
    ctx.note(f"{n} instructions")
    check_instructions(ctx, app, dump, plan, range(n), "demo")
    ctx.shot("last-instruction")


@timeout(120)
def scenario_properties_texts_real_programs(ctx):
    """Item 1: the same on real programs from ../shared/pte-samples (a QNN delegate with many arguments, a Cortex-M kernel program); passes with a note when the folder is absent."""
    samples = [(SAMPLES / name, count) for name, count in (("stories260k-qnn-multimethod.pte", 1),
                                                           ("keyword-spotting-cortex-m.pte", 6))]
    samples = [(s, count) for s, count in samples if s.exists()]
    if not samples:
        ctx.note(f"no samples in {SAMPLES}: nothing to check")
        return
    for sample, count in samples:
        dump = ctx.dump(sample)
        app = ctx.app(sample)
        wait_title(app, lambda t, s=sample: s.name in t, what=f"the title to name {sample.name}", timeout_s=20)
        plan = shown_plan(ctx, app, dump)
        n = instruction_count(dump, plan)
        check_instructions(ctx, app, dump, plan, range(min(n, count)), sample.stem)
        ctx.shot(f"properties-{sample.stem}")
        app.quit()
