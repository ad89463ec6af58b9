'use client';

import { useEffect, useId, useState } from 'react';
import { Input } from '@/components/ui';

/**
 * A list's search field: calls `onSearch` with the trimmed text as the operator types, once
 * they pause, or at once on Enter.
 */
export function SearchBox({
  label,
  placeholder,
  onSearch,
  initial = '',
}: {
  label: string;
  placeholder: string;
  onSearch: (query: string) => void;
  initial?: string;
}) {
  const id = useId();
  const [search, setSearch] = useState(initial);

  useEffect(() => {
    const timer = setTimeout(() => onSearch(search.trim()), 300);
    return () => clearTimeout(timer);
  }, [search, onSearch]);

  return (
    <form
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        onSearch(search.trim());
      }}
      className="max-w-md"
    >
      <label htmlFor={id} className="sr-only">
        {label}
      </label>
      <Input id={id} type="search" placeholder={placeholder} value={search} onChange={(e) => setSearch(e.target.value)} />
    </form>
  );
}
