"""User files are untrusted: size, depth, alias expansion and encoding limits give clear errors."""

from __future__ import annotations

import pytest

from gpuwise.errors import ConfigError, UsageError
from gpuwise.files import MAX_FILE_BYTES, parse_json, parse_yaml, read_json, read_text, read_yaml, require_file
from gpuwise.planfile import read_plan_file


def _bomb(levels: int = 9) -> str:
    lines = ["a0: &a0 [" + ",".join(['"lol"'] * 9) + "]"]
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]")
    return "\n".join(lines) + "\nmodel: llama-2-7b\n"


def test_alias_bomb_is_refused_without_expanding():
    text = _bomb()
    assert len(text) < 500  # the class of 400-byte file that used to run for minutes (10^9 values)
    with pytest.raises(ConfigError, match="aliases repeated too often"):
        parse_yaml(text, "bomb.yaml")


def test_a_few_aliases_are_fine():
    doc = parse_yaml("base: &b {seq: 2048}\nworkload: *b\nother: *b\n", "ok.yaml")
    assert doc["workload"] == {"seq": 2048}


def test_a_big_file_without_aliases_is_read_and_only_what_aliases_add_is_counted(tmp_path, monkeypatch):
    """A team's export of 12,000 offers (300,000 values, 2.9 MB) was refused as "aliases repeated too
    often": the limit counted every value. It counts what aliases add, the one way a small file grows."""
    from gpuwise.api import own_offers
    from gpuwise.files import MAX_ALIAS_NODES

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-config"))  # the export alone
    line = ("- {{gpu: h100-sxm, provider: ourcloud, instance: team-{i}, gpus_per_instance: 8, link: nvswitch,"
            " region: r{i}, price_model: on-demand, currency: USD, price_per_hour: {price}, date: '2026-11-01',"
            " source: 'export row {i}', available: true}}")  # fmt: skip
    export = tmp_path / "export.yaml"
    export.write_text("offers:\n" + "\n".join(line.format(i=i, price=20 + i / 1000) for i in range(12_000)) + "\n")
    assert export.stat().st_size < MAX_FILE_BYTES
    offers = own_offers(export)
    assert len(offers) == 12_000 and offers[-1].price_per_hour == pytest.approx(20 + 11_999 / 1000)
    # aliases: one anchor used just within the limit is read; one more alias is refused
    per_alias = 9  # what `*b` adds: the mapping, its 4 keys and 4 values
    body = "{a: 1, b: 2, c: 3, d: 4}"
    ok_count = MAX_ALIAS_NODES // per_alias

    def uses(n: int) -> str:
        return "base: &b " + body + "\nuses: [" + ", ".join(["*b"] * n) + "]\n"

    assert len(parse_yaml(uses(ok_count), "ok.yaml")["uses"]) == ok_count
    with pytest.raises(ConfigError, match="aliases repeated too often"):
        parse_yaml(uses(ok_count + 1), "over.yaml")


@pytest.mark.parametrize("depth", [65, 3000])
def test_deep_yaml_is_refused(depth):
    with pytest.raises(ConfigError, match="nest"):
        parse_yaml("model: " + "[" * depth + "]" * depth, "deep.yaml")


def test_non_utf8_and_oversized_files(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_bytes(b"model: \xff\xfe\n")
    with pytest.raises(ConfigError, match="not UTF-8"):
        read_yaml(bad)
    big = tmp_path / "big.yaml"
    big.write_bytes(b"#" * (MAX_FILE_BYTES + 1))
    with pytest.raises(ConfigError, match="larger than"):
        read_yaml(big)
    with pytest.raises(ConfigError, match="cannot read"):
        read_yaml(tmp_path / ("x" * 5000))


def test_json_depth_and_constants():
    with pytest.raises(ConfigError, match="levels deep"):
        parse_json("[" * 100_000 + "]" * 100_000, "deep.json")
    for constant in ("NaN", "Infinity", "-Infinity"):
        with pytest.raises(ConfigError, match="not a number JSON allows"):
            parse_json('{"hidden_size": ' + constant + "}", "c.json")
    assert parse_json('{"a": "[[[\\"{{{", "b": [1]}', "ok.json") == {"a": '[[["{{{', "b": [1]}


def test_a_non_finite_number_names_its_key():
    """Python's json.dump writes NaN for the mean of no samples: the error says which value it is."""
    with pytest.raises(ConfigError, match=r"c.json: key 'mean_itl_ms': NaN is not a number JSON allows"):
        parse_json('{"completed": 3, "mean_itl_ms": NaN, "std_itl_ms": NaN}', "c.json")
    with pytest.raises(ConfigError, match=r"key 'runs\[1\]\.tflops': 1e400 is not a number JSON allows"):
        parse_json('{"runs": [{"tflops": 1}, {"tflops": 1e400}]}', "c.json")
    with pytest.raises(ConfigError, match=r"c.json: item 2: -Infinity is not"):
        parse_json("[1, 2, -Infinity]", "c.json")
    with pytest.raises(ConfigError, match=r"c.json: key '\[0\]\.x': Infinity is not"):
        parse_json('[{"x": Infinity}]', "c.json")
    with pytest.raises(ConfigError, match=r"c.json: item 0: NaN is not"):
        parse_json("[NaN]", "c.json")
    with pytest.raises(ConfigError, match=r"c.json: the whole document: NaN is not"):
        parse_json("NaN", "c.json")


def test_a_missing_file_is_named_and_a_name_too_long_is_left_to_the_read(tmp_path):
    """A host recording or fleet rules file that is not there: a usage error saying what is missing;
    a name the file system refuses passes on to the read, whose error says why."""
    with pytest.raises(UsageError, match=r"^no fleet rules file at '.*absent\.yaml'$"):
        require_file(tmp_path / "absent.yaml", "fleet rules file")
    (tmp_path / "here.json").write_text("{}", encoding="utf-8")
    require_file(tmp_path / "here.json", "recording")
    too_long = tmp_path / ("x" * 5000)
    require_file(too_long, "recording")
    with pytest.raises(ConfigError, match="cannot read"):
        read_text(too_long)


def test_read_json_file(tmp_path):
    p = tmp_path / "c.json"
    p.write_text('{"x": 1}', encoding="utf-8")
    assert read_json(p) == {"x": 1}
    p.write_text("{", encoding="utf-8")
    with pytest.raises(ConfigError, match="not valid JSON"):
        read_json(p)


@pytest.mark.parametrize(
    "text",
    ["costs: [1, 2]\nmodel: llama-2-7b\n", "requirements: 3\nmodel: llama-2-7b\n", "workload: [1]\n", "- 1\n- 2\n"],
)
def test_plan_file_sections_must_be_mappings(tmp_path, text):
    p = tmp_path / "p.yaml"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match="mapping"):
        read_plan_file(p)
