import { Route, Routes } from "react-router-dom";
import { MembersPage } from "./pages/MembersPage";

export default function App() {
  return (
    <main className="mx-auto max-w-3xl p-6">
      <Routes>
        <Route path="/" element={<MembersPage />} />
      </Routes>
    </main>
  );
}
