// Light progressive enhancement. Every form input sits in a wrapper that says which task it
// applies to (data-applies="training|inference|any", from the schema); only the chosen task's
// inputs are shown, and the hidden ones are disabled so that the form never sends them.
document.addEventListener("DOMContentLoaded", () => {
  const task = document.getElementById("task");
  const sync = () => {
    const kind = task.value === "inference" ? "inference" : "training";
    document.querySelectorAll("[data-applies]").forEach((e) => {
      const on = e.dataset.applies === "any" || e.dataset.applies === kind;
      e.hidden = !on;
      e.querySelectorAll("input, select, textarea").forEach((i) => { i.disabled = !on; });
    });
  };
  if (task) { task.addEventListener("change", sync); sync(); }
  // the GPU type select writes the GPU spec (keeping a ":N" count already typed)
  const gpuSelect = document.getElementById("gpu_id");
  const gpuSpec = document.getElementById("gpu");
  if (gpuSelect && gpuSpec) {
    gpuSelect.addEventListener("change", () => {
      if (!gpuSelect.value) return;
      const count = gpuSpec.value.includes(":") ? gpuSpec.value.slice(gpuSpec.value.indexOf(":")) : "";
      gpuSpec.value = gpuSelect.value + count;
    });
  }
  // an error page's "Back" returns to the filled-in form (a link to / without script)
  const back = document.getElementById("back");
  if (back && window.history.length > 1) {
    back.addEventListener("click", (e) => { e.preventDefault(); window.history.back(); });
  }
});
