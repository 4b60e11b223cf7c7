import type { Member } from "../store/members";

export function MemberCard({ member }: { member: Member }) {
  return (
    <article className="rounded-lg border p-4">
      <h2 className="font-medium">{member.name}</h2>
      <p className="text-sm text-gray-600">{member.role}</p>
    </article>
  );
}
