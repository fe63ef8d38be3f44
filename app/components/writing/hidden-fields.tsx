/** What every form of a writing page posts besides its own fields: where to come back to. */
export function HiddenFields({ projectId, selectedPlotId, tab }: { projectId: string; selectedPlotId?: string | null; tab?: string }) {
  return (
    <>
      <input type="hidden" name="projectId" value={projectId} />
      {selectedPlotId ? <input type="hidden" name="selectedPlotId" value={selectedPlotId} /> : null}
      {tab ? <input type="hidden" name="tab" value={tab} /> : null}
    </>
  );
}
