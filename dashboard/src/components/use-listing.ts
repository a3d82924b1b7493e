import { useState } from 'preact/hooks';
import type { DatabaseResponse } from '../../../schemas/listings';

/**
 * The one way a list page pages through a listing: the rows so far, the next page's startKey (null at the
 * end), and `load(null)` for the first page or `load(next)` for the one after. `load` answers the page it
 * read, or throws the read's error for the page to show.
 */
export function useListing<T>(read: (startKey: string | null) => Promise<DatabaseResponse<T>>) {
  const [rows, setRows] = useState<T[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const load = async (startKey: string | null): Promise<DatabaseResponse<T>> => {
    setLoading(true);
    try {
      const page = await read(startKey);
      setRows((current) => (startKey ? [...current, ...page.list] : page.list));
      setNext(page.endOfList ? null : page.startKey);
      return page;
    } finally {
      setLoading(false);
    }
  };
  return { rows, next, loading, load };
}
