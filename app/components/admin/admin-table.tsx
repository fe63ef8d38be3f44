import type { ReactNode } from "react";
import { Link } from "react-router";
import { TableScroll } from "~/components/ui/table-scroll";

/**
 * The operator console's table: a header row and the caller's rows. With a `label` it scrolls
 * sideways on a phone inside a named, focusable region (TableScroll); `framed` draws the
 * region as a card (the full-page lists). A `null` heading is a column left out.
 */
export function AdminTable({
  head,
  label,
  framed = false,
  testId,
  children,
}: {
  head: (string | null)[];
  label?: string;
  framed?: boolean;
  testId?: string;
  children: ReactNode;
}) {
  const table = (
    <table className="admin-table" data-testid={testId}>
      <thead>
        <tr>
          {head.map((h, i) =>
            h === null ? null : (
              <th key={i} scope="col">
                {h}
              </th>
            ),
          )}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
  if (!label) return table;
  return (
    <TableScroll label={label} className={framed ? "admin-table-wrap" : undefined}>
      {table}
    </TableScroll>
  );
}

/** A row's account cell: the nickname, linked to the user's page, over the e-mail. */
export function UserCell({ userId, nickname, email }: { userId: string; nickname: string; email: string }) {
  return (
    <td>
      <Link to={`/admin/users/${userId}`}>{nickname}</Link>
      <br />
      <small>{email}</small>
    </td>
  );
}
