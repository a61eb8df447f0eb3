"""The core stays pure: importing and running it loads no I/O or heavy library."""

import subprocess
import sys

HEAVY = ("torch", "pynvml", "sqlalchemy", "fastapi", "typer", "rich", "prometheus_client", "httpx", "numpy")


def test_core_imports_no_io_library():
    code = (
        "import sys\n"
        "from gpuwise.catalog import load_catalog\n"
        "from gpuwise.workload import build_workload, build_hardware\n"
        "from gpuwise.estimate import estimate\n"
        "cat = load_catalog()\n"
        "w = build_workload({'model': 'llama-2-7b', 'method': 'lora'}, cat)\n"
        "estimate(w, build_hardware('a10', cat), cat)\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_public_api_is_what_all_says():
    import gpuwise.catalog
    import gpuwise.estimate
    import gpuwise.workload

    for mod in (gpuwise, gpuwise.catalog, gpuwise.estimate, gpuwise.workload):
        for name in mod.__all__:
            assert hasattr(mod, name), f"{mod.__name__}.{name}"
