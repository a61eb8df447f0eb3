"""Kubernetes manifests from a plan: serving, training, dev pools and GPU sharing.

`manifests` turns a chosen candidate into manifest dicts (pure): `inference` and `training` build
the objects of each kind, `sharing` the MIG/time-slicing layouts, `common` the pieces they share
(values with reasons, options, names, placement). `pools` plans dev/train/inference GPU pools
for a team, `writer` writes commented YAML, `validate` checks it against the Kubernetes and CRD
schemas. The command line is `gpuwise deploy` (`gpuwise.cli.deploy_cmd`).
"""

from __future__ import annotations

from gpuwise.deploy.common import Bundle, DeployOptions, Manifest
from gpuwise.deploy.manifests import candidate_manifests, plan_manifests

__all__ = ["Bundle", "DeployOptions", "Manifest", "candidate_manifests", "plan_manifests"]
