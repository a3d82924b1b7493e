/** What ${service_name} reads in a mail: the project's name, or its id when the name is empty. */
export async function serviceName(db: D1Database, serviceId: string): Promise<string> {
  const row = await db.prepare('SELECT name FROM projects WHERE service_id = ?').bind(serviceId).first<{ name: string }>();
  return row?.name || serviceId;
}
