(** * The checkers a certificate file calls

    Soundness.v proves: [check_theorem d net data = true] implies [theorem_1_6 d net data],
    and [check_instance d l inputs expected = true] implies [instance d l inputs expected]
    (both claims are stated in Semantics.v). *)
From Coq Require Import QArith List Bool.
From Proofcheck Require Import Semantics Fast.
Import ListNotations.
Open Scope Q_scope.

(** ** Well-formedness, computed *)
Definition num_okb (x : num) : bool :=
  match x with
  | Dec (Number.Decimal _) => true
  | Frac (Number.Decimal _) (Number.Decimal _ as q) => negb (Qeq_bool (literal_value q) 0)
  | _ => false
  end.
Definition vec_okb (d : nat) (x : list num) : bool := Nat.eqb (length x) d && forallb num_okb x.
Definition factored_okb (d : nat) (M : factored num) : bool :=
  num_okb (lam M) && forallb (vec_okb d) (left M) && forallb (vec_okb d) (right M) &&
  Nat.eqb (length (left M)) (length (right M)).
Definition ff_okb (d : nat) (f : ff num) : bool :=
  num_okb (eta f) && forallb (vec_okb d) (U f) && forallb num_okb (b f) &&
  forallb (vec_okb d) (W f) && Nat.eqb (length (U f)) (length (b f)) &&
  Nat.eqb (length (U f)) (length (W f)).
Definition nonempty {T} (l : list T) : bool := match l with [] => false | _ => true end.
Definition sa_okb (d : nat) (a : sa num) : bool :=
  num_okb (rho a) && nonempty (heads a) &&
  forallb (fun h => factored_okb d (A h) && factored_okb d (V h)) (heads a).
Definition net_okb (d : nat) (net : list (block num)) : bool :=
  forallb (fun bl => ff_okb d (ff_of bl) && sa_okb d (sa_of bl)) net.
Definition seq_okb (d : nat) (X : list (list num)) : bool := nonempty X && forallb (vec_okb d) X.
Definition data_okb (d : nat) (data : list (list (list num) * list (list num))) : bool :=
  forallb (fun XY => seq_okb d (fst XY) && seq_okb d (snd XY)) data.

(** ** Theorem 1.6 *)
Definition check_theorem (d : nat) (net : list (block num))
           (data : list (list (list num) * list (list num))) : bool :=
  net_okb d net && data_okb d data && check_pairs (prepare (read_net net)) (read_data data).

(** A certificate's pairs in chunks: the network prepared once ([pn]), each chunk's
    pairs checked against it. *)
Definition check_data (d : nat) (pn : list pblock)
           (data : list (list (list num) * list (list num))) : bool :=
  data_okb d data && check_pairs pn (read_data data).

Fixpoint find {T} (f : T -> bool) (l : list T) (i : nat) : option nat :=
  match l with [] => None | x :: l' => if f x then Some i else find f l' (S i) end.

(** Where a check fails: [[]] nowhere, [[0]] not well formed, [[1; j; i]] output [i]
    of pair [j] is not a target, [[2; j; k]] target [k] of pair [j] is not hit. *)
Definition diagnose_pair (pn : list pblock) (j : nat) (XY : list vec * list vec) : list nat :=
  let out := run pn (fst XY) in
  match find (fun x => negb (existsb (veqb x) (snd XY))) out 0 with
  | Some i => [1; j; i]%nat
  | None => match find (fun y => negb (existsb (fun x => veqb x y) out)) (snd XY) 0 with
            | Some k => [2; j; k]%nat
            | None => []
            end
  end.

Fixpoint diagnose_pairs (pn : list pblock) (j : nat) (data : list (list vec * list vec)) :=
  match data with
  | [] => []
  | XY :: rest => match diagnose_pair pn j XY with
                  | [] => diagnose_pairs pn (S j) rest
                  | w => w
                  end
  end.

Definition diagnose_data (d : nat) (pn : list pblock)
           (data : list (list (list num) * list (list num))) : list nat :=
  if data_okb d data then diagnose_pairs pn 0 (read_data data) else [0%nat].

(** ** Lemma instances *)
Definition layer_okb (d : nat) (l : layer num) : bool :=
  match l with FFLayer f => ff_okb d f | SALayer a => sa_okb d a end.

Definition layer_fast (l : layer Q) (X : list vec) : list vec :=
  match l with
  | FFLayer f => map tx (map (ff_fast (prep_ff f)) (map (fun x => Tok (map qnorm x) None) X))
  | SALayer a => map tx (sa_fast (prep_sa a) (map (fun x => Tok (map qnorm x) None) X))
  end.

Fixpoint matchesb (out : list vec) (E : list (option vec)) : bool :=
  match out, E with
  | x :: out', e :: E' => match e with Some y => veqb x y | None => true end && matchesb out' E'
  | [], [] => true
  | _, _ => false
  end.

Fixpoint all2 {S T} (f : S -> T -> bool) (l : list S) (m : list T) : bool :=
  match l, m with
  | x :: l', y :: m' => f x y && all2 f l' m'
  | [], [] => true
  | _, _ => false
  end.

Definition expected_okb (d : nat) (E : list (list (option (list num)))) : bool :=
  forallb (forallb (fun e => match e with Some y => vec_okb d y | None => true end)) E.

Definition check_instance (d : nat) (l : layer num) (inputs : list (list (list num)))
           (expected : list (list (option (list num)))) : bool :=
  layer_okb d l && forallb (seq_okb d) inputs && expected_okb d expected &&
  all2 (fun X E => matchesb (layer_fast (read_layer l) (read_seq X)) (map (option_map read_vec) E))
       inputs expected.
