/** A page's last outcome: a success announced politely, an error as an alert. */
export type Status = { text: string; error?: boolean } | null;

export function StatusLine({ id, status }: { id: string; status: Status }) {
  if (!status) return null;
  return (
    <p id={id} class={status.error ? 'status error' : 'status'} role={status.error ? 'alert' : 'status'}>
      {status.text}
    </p>
  );
}
