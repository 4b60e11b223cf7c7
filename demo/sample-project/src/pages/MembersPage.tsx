import { useMembers } from "../store/members";
import { MemberCard } from "../components/MemberCard";

export function MembersPage() {
  const members = useMembers((state) => state.members);
  return (
    <section>
      <h1 className="mb-4 text-2xl font-semibold">Team</h1>
      <ul className="grid gap-3 sm:grid-cols-2">
        {members.map((member) => (
          <li key={member.id}>
            <MemberCard member={member} />
          </li>
        ))}
      </ul>
    </section>
  );
}
