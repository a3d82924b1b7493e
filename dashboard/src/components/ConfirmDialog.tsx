/** A modal confirmation (<dialog>: focus moves into it, Escape cancels) for what cannot be undone. */
import { useEffect, useRef } from 'preact/hooks';

interface ConfirmProps {
  title: string;
  text: string;
  confirmLabel: string;
  onConfirm(): void;
  onCancel(): void;
}

export function ConfirmDialog({ title, text, confirmLabel, onConfirm, onCancel }: ConfirmProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    dialog.current?.showModal();
  }, []);
  return (
    <dialog ref={dialog} aria-labelledby="confirm-title" aria-describedby="confirm-text" onCancel={onCancel}>
      <h2 id="confirm-title">{title}</h2>
      <p id="confirm-text">{text}</p>
      <div class="buttons">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" class="danger" onClick={onConfirm}>
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
