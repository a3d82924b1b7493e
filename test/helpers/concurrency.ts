/** A task that records how many of its kind run at once. */
export function tracked() {
  let now = 0;
  let most = 0;
  const task = async <T>(value: T): Promise<T> => {
    now++;
    most = Math.max(most, now);
    await new Promise((resolve) => setTimeout(resolve, 2));
    now--;
    return value;
  };
  return { task, most: () => most };
}
