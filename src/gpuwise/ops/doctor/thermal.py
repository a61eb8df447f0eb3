"""Checks of clocks and heat: hardware throttling and temperature against the driver's slowdown
threshold."""

from __future__ import annotations

from gpuwise.hw import HostSnapshot
from gpuwise.ops.doctor.check import (
    FAIL,
    WARN,
    CheckResult,
    DoctorOptions,
    live_gpus,
    passed,
    skipped,
)

FALLBACK_SLOWDOWN_C = 85.0  # when NVML gives no threshold
HW_THROTTLE = {
    "hw_slowdown": "HW slowdown (clocks cut by half or more: temperature, power brake or over-current)",
    "hw_thermal_slowdown": "HW thermal slowdown",
    "hw_power_brake_slowdown": "HW power brake slowdown (asserted by the system power supply)",
}


def check_throttling(snap: HostSnapshot, opts: DoctorOptions) -> list[CheckResult]:
    out, known = [], 0
    for g in live_gpus(snap):
        names = g.throttle_names
        if names is None:
            continue
        known += 1
        hw = [n for n in names if n in HW_THROTTLE]
        if hw:
            thermal = "hw_thermal_slowdown" in hw
            power = "hw_power_brake_slowdown" in hw
            fix = (
                "Check cooling: fans and airflow, inlet temperature, a blocked heatsink"
                if thermal
                else "Check the power supplies and the BMC/IPMI log for a power brake event"
                if power
                else "Check temperatures, power cables and the PSUs; HW slowdown also fires on over-current"
            )
            out.append(
                CheckResult(
                    "throttling",
                    FAIL,
                    f"GPU {g.index}: {', '.join(HW_THROTTLE[n] for n in hw)}",
                    f"clocks event reasons {hex(g.throttle_reasons or 0)} = {', '.join(names)}; SM clock "
                    f"{(g.clock_sm_hz or 0) / 1e6:.0f} of {(g.clock_sm_max_hz or 0) / 1e6:.0f} MHz; {g.temperature_celsius} °C",
                    f"{fix}; details: `nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER -i {g.index}`",
                    g.index,
                )
            )
        elif "sw_thermal_slowdown" in names:
            out.append(
                CheckResult(
                    "throttling",
                    WARN,
                    f"GPU {g.index}: SW thermal slowdown (the driver lowers clocks to stay under the temperature limit)",
                    f"clocks event reasons {', '.join(names)}; {g.temperature_celsius} °C",
                    "Improve cooling (airflow, fan curve, inlet temperature)",
                    g.index,
                )
            )
    if not known:
        return skipped("throttling", "Clock event reasons unknown (not supported)")
    return out or passed("throttling", f"No hardware slowdown on {known} GPU(s) (idle and SW power cap are normal)")


def check_temperature(snap: HostSnapshot, opts: DoctorOptions) -> list[CheckResult]:
    out, known = [], 0
    margin = opts.temperature_margin
    for g in live_gpus(snap):
        if g.temperature_celsius is None:
            continue
        known += 1
        limit = g.temperature_slowdown_celsius or FALLBACK_SLOWDOWN_C
        if g.temperature_celsius >= limit - margin:
            out.append(
                CheckResult(
                    "temperature",
                    WARN,
                    f"GPU {g.index}: {g.temperature_celsius:.0f} °C, within {margin:.0f} °C of slowdown ({limit:.0f} °C)",
                    f"GPU temperature {g.temperature_celsius} °C; slowdown threshold {g.temperature_slowdown_celsius}",
                    "Improve cooling (airflow, fan speed, inlet temperature) or lower the power limit: "
                    f"`sudo nvidia-smi -pl <watts> -i {g.index}`",
                    g.index,
                )
            )
        mem_limit = g.memory_temperature_max_celsius
        if (
            g.memory_temperature_celsius is not None
            and mem_limit
            and g.memory_temperature_celsius >= mem_limit - margin
        ):
            out.append(
                CheckResult(
                    "temperature",
                    WARN,
                    f"GPU {g.index}: memory at {g.memory_temperature_celsius:.0f} °C, within {margin:.0f} °C of its maximum ({mem_limit:.0f} °C)",
                    f"memory temperature {g.memory_temperature_celsius} °C",
                    "Improve cooling; HBM throttles above its maximum operating temperature",
                    g.index,
                )
            )
    if not known:
        return skipped("temperature", "Temperatures unknown")
    return out or passed(
        "temperature", f"All {known} GPU(s) more than {margin:.0f} °C below their slowdown temperature"
    )
