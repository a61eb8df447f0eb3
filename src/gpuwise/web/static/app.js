// Light progressive enhancement: show the fields that apply to the chosen task.
document.addEventListener("DOMContentLoaded", () => {
  const task = document.getElementById("task");
  const sync = () => {
    if (!task) return;
    const serving = task.value === "inference";
    // hidden fields are disabled too, so the form never sends values that do not apply
    const show = (sel, on) => document.querySelectorAll(sel).forEach((e) => {
      e.hidden = !on;
      e.querySelectorAll("input, select").forEach((i) => { i.disabled = !on; });
    });
    show(".training", !serving);
    show(".inference", serving);
  };
  if (task) { task.addEventListener("change", sync); sync(); }
  const gpuSelect = document.getElementById("gpu_id");
  const gpuSpec = document.getElementById("gpu");
  if (gpuSelect && gpuSpec) gpuSelect.addEventListener("change", () => { gpuSpec.value = gpuSelect.value; });
});
