import { create } from "zustand";

export interface Member {
  id: string;
  name: string;
  role: string;
}

interface MembersState {
  members: Member[];
}

export const useMembers = create<MembersState>(() => ({
  members: [
    { id: "1", name: "Ada Lovelace", role: "Engineer" },
    { id: "2", name: "Grace Hopper", role: "Engineering manager" },
  ],
}));
