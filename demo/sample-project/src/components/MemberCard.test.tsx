import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { MemberCard } from "./MemberCard";

describe("MemberCard", () => {
  it("shows the name and the role", () => {
    render(<MemberCard member={{ id: "1", name: "Ada", role: "Engineer" }} />);
    expect(screen.getByText("Ada")).toBeTruthy();
    expect(screen.getByText("Engineer")).toBeTruthy();
  });
});
