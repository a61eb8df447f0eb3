"""Measurements with PyTorch (the optional `bench` extra). Torch is imported lazily, inside
functions, so that importing gpuwise never requires it."""
