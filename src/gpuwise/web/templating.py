"""The one Jinja environment of the pages: the package's templates and the number filters."""

from __future__ import annotations

from importlib import resources

from fastapi.templating import Jinja2Templates

from gpuwise.web.format import register


def package_dir(name: str) -> str:
    return str(resources.files("gpuwise.web").joinpath(name))


templates = Jinja2Templates(directory=package_dir("templates"))
register(templates.env)
